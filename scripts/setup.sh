#!/usr/bin/env bash
# Installs what the build and the tests need, only what is missing.
# Debian packages through apt-get (as root, or with sudo); npm packages with npm ci.
set -euo pipefail
cd "$(dirname "$0")/.."

# --site (npm start): what building the wasm module and serving dist/ needs; no argument: also the
# native build; --all (npm test): also the browser, the CJK font and the sanitizer/fuzzer runtime.
mode=${1:-native}
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v emcc >/dev/null || need+=(emscripten)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
[ -d /usr/share/nodejs/acorn ] || need+=(node-acorn)
if [ "$mode" != --site ]; then
  command -v g++ >/dev/null || need+=(g++)
  [ -f /usr/include/catch2/catch.hpp ] || need+=(catch2)
  [ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || need+=(libcurl4-openssl-dev)
fi
if [ "${WIF_SANITIZE:-}" = 1 ] || [ "$mode" = --all ]; then
  command -v chromium >/dev/null || need+=(chromium)
  # A CJK font, so that Chinese pages are checked on screen (screenshots show glyphs, not boxes).
  (command -v fc-list >/dev/null && fc-list | grep -qi "Noto Sans CJK") || need+=(fonts-noto-cjk)
  command -v clang++ >/dev/null || need+=(clang)
  ls /usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need[*]}"
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "setup: cannot install as a normal user without sudo. Please run:" >&2
    echo "  apt-get update && apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
