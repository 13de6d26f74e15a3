#!/data/data/com.termux/files/usr/bin/bash
# Stop Pitwall on the phone. The hot path closes its session and flushes before it exits (SIGTERM).
set -uo pipefail
PITWALL_DATA_DIR="${PITWALL_DATA_DIR:-$HOME/pitwall-data}"
for svc in paddock hotpath; do
  pid_file="$PITWALL_DATA_DIR/$svc.pid"
  [ -f "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null && rm -f "$pid_file" && echo "stopped $svc"
done
termux-wake-unlock || true
