"""Schemathesis hooks for test/integration/contract.test.ts (loaded through SCHEMATHESIS_HOOKS).

The sandbox's X-Sandbox-Scenario header is documented as an enum, so the fuzzer draws its
values. Some of them ask the simulated supplier to refuse, and a refusal is answered with a
5xx on purpose, as documented: 502 on Interface A ("the supplier refused; the debit was
reversed"), 500 on Interface B (the specification lists 500 for a booking the hotel would
not confirm). Those answers are tested in the integration tests of each service; here the
header keeps every other value, so that no 5xx is expected anywhere in the run.
"""

import schemathesis

# Scenarios whose documented answer is a 5xx (src/suppliers/simulator/app.ts and the routes),
# and the slow supplier, which holds each request for the stack's whole pay wait (5 s) and
# answers 202 as the integration tests check: drawn in every coverage case, it alone would
# double the run.
REFUSALS = {"supplier_reject", "supplier_down", "cancel_reject", "refund_reject", "supplier_slow"}


@schemathesis.hook
def before_call(ctx, case, kwargs):
    # Every phase (examples, coverage, fuzzing) sends through here; the generation hooks do not see them all.
    # A negative case is refused before any supplier is asked (401, 400, 422); changing it
    # would make Schemathesis revalidate it as positive and send the credentials it left out.
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    if case.headers and case.headers.get("x-sandbox-scenario") in REFUSALS:
        del case.headers["x-sandbox-scenario"]
