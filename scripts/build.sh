#!/usr/bin/env bash
# Builds the native core, CLI and tests (build/), the wasm module (build-wasm/), and assembles
# the static site in dist/ (web/ sources + the module + the chart library). Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"

export NODE_PATH=/usr/share/nodejs   # Emscripten 3.1.6's optimizer needs Debian's acorn
if [ ! -f build-wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build-wasm -j"$jobs"

node scripts/assemble.mjs
