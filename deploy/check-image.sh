#!/usr/bin/env bash
# Builds the image and checks it the way an operator would: it starts, runs as
# the non-root user, answers health and a rules call over gRPC, serves metrics,
# and on SIGTERM reports NOT_SERVING, drains and exits 0.
#
# Run from the repository root; needs docker or podman, grpcurl and curl:
#
#   deploy/check-image.sh                      # docker
#   ENGINE=podman deploy/check-image.sh
#
# Environment: ENGINE (container command, with any global flags), TAG (image
# tag, default chuhe:check), BUILD_ARGS and RUN_ARGS (extra flags for build
# and run), GRPC_PORT and METRICS_PORT (host ports, default 50051 and 9464).
set -euo pipefail

engine=${ENGINE:-docker}
tag=${TAG:-chuhe:check}
grpc_port=${GRPC_PORT:-50051}
metrics_port=${METRICS_PORT:-9464}
name=chuhe-check-$$
grpc=127.0.0.1:$grpc_port

fail() { echo "check-image: $*" >&2; exit 1; }
cleanup() { $engine rm -f "$name" > /dev/null 2>&1 || true; }
trap cleanup EXIT

# shellcheck disable=SC2086 # ENGINE, BUILD_ARGS and RUN_ARGS hold several words on purpose
{
  $engine build ${BUILD_ARGS:-} -f deploy/Dockerfile -t "$tag" .
  user=$($engine image inspect --format '{{.Config.User}}' "$tag")
  [ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"

  $engine run -d --name "$name" -p "$grpc:50051" -p "127.0.0.1:$metrics_port:9464" ${RUN_ARGS:-} "$tag" > /dev/null
}

serving=
for _ in $(seq 60); do
  if grpcurl -plaintext "$grpc" grpc.health.v1.Health/Check 2> /dev/null | grep -q '"SERVING"'; then
    serving=yes
    break
  fi
  sleep 0.5
done
[ -n "$serving" ] || { $engine logs "$name" >&2; fail "no SERVING health within 30 s"; }

grpcurl -plaintext -d '{"service":"chuhe.v1.RulesService"}' "$grpc" grpc.health.v1.Health/Check \
  | grep -q '"SERVING"' || fail "chuhe.v1.RulesService is not SERVING"
moves=$(grpcurl -plaintext -d '{"position":{"variant":"VARIANT_XIANGQI","fen":"startpos"}}' \
  "$grpc" chuhe.v1.RulesService/ListLegalMoves | grep -c '"iccs"')
[ "$moves" = 44 ] || fail "the start position lists $moves moves, want 44"
curl -fsS "http://127.0.0.1:$metrics_port/metrics" \
  | grep -q '^grpc_server_handled_total{.*grpc_method="ListLegalMoves".*grpc_code="OK"' \
  || fail "metrics do not count the ListLegalMoves call"

$engine stop -t 30 "$name" > /dev/null
code=$($engine inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || { $engine logs "$name" >&2; fail "exit code $code after SIGTERM, want 0"; }
$engine logs "$name" 2>&1 | grep -q 'NOT_SERVING, draining' || fail "no drain on SIGTERM in the log"

echo "check-image: $tag builds, serves as 65532, answers health, rules and metrics, and drains on SIGTERM"
