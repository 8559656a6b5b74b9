#!/usr/bin/env bash
# Start-up smoke: `npm start` with a fresh DATA_DIR (PGlite, Temporal dev server), wait for
# /healthz, create a partner with the admin CLI, buy and pay a SIM card through Interface A,
# check the wallet, the docs page's assets and the admin /metrics, stop. Exits non-zero on
# any failure.
#
#   bash scripts/smoke.sh              # the TypeScript sources through tsx (npm start)
#   bash scripts/smoke.sh --compiled   # the same engine compiled (npm run build first): node dist/src/main.js,
#                                      # its worker on the workflow bundle built with it
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINE_CMD=(npm start)
if [ "${1:-}" = --compiled ]; then
  [ -f dist/src/main.js ] && [ -f dist/workflow-bundle.js ] || { echo "smoke: no compiled build in dist/ (npm run build)" >&2; exit 1; }
  ENGINE_CMD=(node --enable-source-maps dist/src/main.js)
fi
export DATA_DIR=$(mktemp -d /tmp/bte-smoke.XXXXXX)
export PORT=${SMOKE_PORT:-28080} ADMIN_PORT=${SMOKE_ADMIN_PORT:-28081} SIMULATOR_PORT=${SMOKE_SIM_PORT:-28090}
export TEMPORAL_DEV_PORT=${SMOKE_TEMPORAL_PORT:-27233} TEMPORAL_UI_PORT=${SMOKE_TEMPORAL_UI_PORT:-28233} TEMPORAL_CORE_METRICS_PORT=${SMOKE_CORE_METRICS_PORT:-29465}
unset DATABASE_URL TEMPORAL_ADDRESS ADMIN_TOKEN
API="http://127.0.0.1:$PORT"

# Its own process group, so that stopping it is what Ctrl-C in a terminal does.
setsid "${ENGINE_CMD[@]}" >"$DATA_DIR/engine.log" 2>&1 &
ENGINE=$!
cleanup() {
  kill -INT -- "-$ENGINE" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$ENGINE" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$ENGINE" 2>/dev/null; then echo "smoke: ${ENGINE_CMD[*]} did not stop on SIGINT within 30 s" >&2; kill -KILL -- "-$ENGINE" 2>/dev/null || true; STOP_FAILED=1; fi
  pkill -f "temporal server start-dev --ip 127.0.0.1 --port $TEMPORAL_DEV_PORT" 2>/dev/null || true
}
fail() { echo "smoke: $*" >&2; tail -n 40 "$DATA_DIR/engine.log" >&2; exit 1; }
STOP_FAILED=0
trap cleanup EXIT

for i in $(seq 1 240); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$API/healthz")" = 200 ] && break
  kill -0 "$ENGINE" 2>/dev/null || fail "${ENGINE_CMD[*]} exited"
  [ "$i" = 240 ] && fail "/healthz not 200 after 120 s"
  sleep 0.5
done
[ "$(stat -c %a "$DATA_DIR/admin-token")" = 600 ] || fail "admin-token is not mode 0600"

json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=process.argv[1].split(".").reduce((o,k)=>o?.[k],JSON.parse(s));console.log(v)})' "$1"; }
CREDS=$(npm run --silent admin -- partner create --name "Smoke Travel" --topup 5000000 --credit-limit 100000 --json)
KEY=$(echo "$CREDS" | json api_key)
SECRET=$(echo "$CREDS" | json api_secret)
a() { curl -s -H "X-API-KEY: $KEY" -H "X-API-SECRET: $SECRET" -H 'Content-Type: application/json' "$@"; }

PRODUCT=$(a "$API/api/products/products/?search=turkey%20esim" | json data.results.0.id)
VARIANT=$(a "$API/api/products/products/$PRODUCT/" | json data.variants.0.id)
a -X POST "$API/api/products/basket/items/" -d "{\"product\":$PRODUCT,\"variant\":$VARIANT,\"quantity\":1}" | grep -q '"ok":true' || fail "basket add"
ORDER=$(a -X POST "$API/api/products/checkout/" -d '{"payment_method":"PARTNER_CREDIT"}' | json data.id)
PAY=$(a -X POST "$API/api/partners/pay/" -d "{\"product_order_id\":$ORDER,\"idempotency_key\":\"smoke-1\"}")
[ "$(echo "$PAY" | json data.order_status)" = completed ] || fail "pay: $PAY"
BALANCE=$(a "$API/api/partners/wallet/" | json data.balance)
[ "$BALANCE" = "4450000.00" ] || fail "wallet balance $BALANCE, expected 4450000.00"
echo "smoke: partner created, SIM card paid (order $ORDER), balance $BALANCE: ok"
# The docs page and the swagger-ui asset it names, read from the installed swagger-ui-dist.
ASSET=$(curl -s "$API/api/docs" | grep -o '/docs/swagger-ui/[^"]*swagger-ui-bundle.js' | head -n 1)
[ -n "$ASSET" ] || fail "/api/docs names no swagger-ui-bundle.js"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$API$ASSET")" = 200 ] || fail "$ASSET is not served"
echo "smoke: docs page and its swagger-ui assets: ok"
# One scrape of everything: the API's and the worker's series and Temporal Core's, each family typed once.
METRICS=$(curl -s -H "Authorization: Bearer $(cat "$DATA_DIR/admin-token")" "http://127.0.0.1:$ADMIN_PORT/metrics")
for series in 'pay_outcomes_total{outcome="completed"} 1' 'wallet_debit_duration_seconds_count 1' 'temporal_num_pollers{'; do
  grep -qF "$series" <<<"$METRICS" || fail "admin /metrics lacks $series"
done
TWICE=$(grep '^# TYPE ' <<<"$METRICS" | awk '{print $3}' | sort | uniq -d)
[ -z "$TWICE" ] || fail "admin /metrics types these twice: $TWICE"
echo "smoke: admin /metrics has the API, worker and Temporal Core series, each once: ok"
cleanup
trap - EXIT
[ "$STOP_FAILED" = 0 ] || exit 1
echo "smoke: stopped cleanly"
