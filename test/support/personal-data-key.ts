import { usePersonalDataKeys } from '../../src/db/personal-data';
import { secretBox, newSecretKey, parseSecretKey } from '../../src/platform/secret-box';

// Every test file's process has a personal-data key, as every engine process has one from
// start-up: a test that writes bookings straight into a database seals them as the engine does.
usePersonalDataKeys(secretBox(parseSecretKey(newSecretKey())!));
