#!/data/data/com.termux/files/usr/bin/bash
# Pitwall on an Android phone (Termux): install once. The phone runs LocalLLM on 127.0.0.1:8080/v1.
#   bash deploy/phone/install.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
pkg install -y python rust binutils clang cmake libandroid-execinfo termux-api
python -m venv "$HOME/.pitwall-venv"
"$HOME/.pitwall-venv/bin/pip" install -c constraints.txt .
mkdir -p "$HOME/pitwall-data"
echo "installed; start with: bash deploy/phone/start.sh"
