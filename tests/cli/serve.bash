# Sourced after common.bash: start_server ROOT serves ROOT over http on 127.0.0.1 with range_server.py,
# sets URL and LOG, and stops it (by its process id) when the script exits. Nothing leaves the machine:
# proxies and tokens from the environment are dropped.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY HF_TOKEN
servers=()
stop_servers() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap stop_servers EXIT
start_server() {
  LOG=$WORK/server.log
  rm -f "$WORK/server.port"
  "$PYTHON" "$(dirname "${BASH_SOURCE[0]}")/range_server.py" "$1" "$LOG" "$WORK/server.port" &
  servers+=($!)
  for _ in $(seq 100); do
    [ -s "$WORK/server.port" ] && break
    sleep 0.1
  done
  URL=http://127.0.0.1:$(cat "$WORK/server.port")
}
# sent PATH: bytes the server sent for PATH so far.
sent() { "$PYTHON" -c 'import json,sys; print(sum(r["sent"] for r in map(json.loads, open(sys.argv[1])) if r["path"] == sys.argv[2]))' "$LOG" "$1"; }
