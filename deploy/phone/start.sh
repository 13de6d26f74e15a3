#!/data/data/com.termux/files/usr/bin/bash
# Start Pitwall on the phone: the hot path on the AiM MXP CAN adapter, the paddock on LocalLLM.
#   bash deploy/phone/start.sh            (CAN adapter on /dev/ttyACM0)
#   CAN=virtual:pitwall bash deploy/phone/start.sh  (no adapter: replay logs with `pitwall replay`)
set -euo pipefail
cd "$(dirname "$0")/../.."
PITWALL="$HOME/.pitwall-venv/bin/pitwall"
export PITWALL_DATA_DIR="$HOME/pitwall-data"
export LITELLM_LOCAL_MODEL_COST_MAP=True
export PITWALL_ADK_OPENAI_URL="${PITWALL_ADK_OPENAI_URL:-http://127.0.0.1:8080/v1}"
export PITWALL_ADK_OPENAI_MODEL="${PITWALL_ADK_OPENAI_MODEL:-gemma3n-e2b}"
CAN="${CAN:-slcan:/dev/ttyACM0}"
termux-wake-lock || true  # keep the CPU awake with the screen off
mkdir -p "$PITWALL_DATA_DIR/logs"
nohup "$PITWALL" hotpath --port 8710 --can "$CAN" > "$PITWALL_DATA_DIR/logs/hotpath.log" 2>&1 &
echo $! > "$PITWALL_DATA_DIR/hotpath.pid"
nohup "$PITWALL" paddock --port 8720 > "$PITWALL_DATA_DIR/logs/paddock.log" 2>&1 &
echo $! > "$PITWALL_DATA_DIR/paddock.pid"
echo "hot path on :8710, paddock (and the tablet app) on http://127.0.0.1:8720/"
