#!/usr/bin/env bash
# Installs the Debian packages baulk's tests use, only when they are missing.
# Node.js runs the real MicroPython (WebAssembly) for the firmware tests.
set -euo pipefail
need=()
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
# The MQTT bridge tests start a real broker; the TLS test makes a throw-away CA.
{ [ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null 2>&1; } || need+=(mosquitto)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# The boards are tested in a real headless Chromium; Noto draws the Persian board.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -d /usr/share/fonts/truetype/noto ] || need+=(fonts-noto-core)
# Pillow's raqm layout engine loads FriBiDi at run time: without it the
# handset's Persian (baulk firmware build, names for the handset) cannot be shaped.
compgen -G '/usr/lib/*/libfribidi.so.0' >/dev/null || need+=(libfribidi0)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "system-deps: installing ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
