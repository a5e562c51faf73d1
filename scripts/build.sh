#!/usr/bin/env bash
# Builds what is asked for, incrementally:
#   bash scripts/build.sh          the native CLI (build/cli/willitfit), the wasm module
#                                  (build-wasm/) and the static site in dist/ with a sample of
#                                  its static pages (npm test; WIF_PAGES_LIMIT= for all of them).
#                                  The Catch2 tests are built by npm test in build-asan/ (clang,
#                                  ASan+UBSan; scripts/test-sanitizers.mjs); for a plain build of
#                                  them: cmake --build build --target willitfit_tests
#   bash scripts/build.sh --site   only what serving the site needs: the wasm module and dist/
#                                  without the static pages (npm start draws them while serving;
#                                  no native compile)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

if [ "${1:-}" != --site ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$jobs" --target willitfit
fi

export NODE_PATH=/usr/share/nodejs   # Emscripten 3.1.6's optimizer needs Debian's acorn
if [ ! -f build-wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build-wasm -j"$jobs"

if [ "${1:-}" = --site ]; then
  # npm start: the app first; scripts/serve.mjs draws the static pages (scripts/prerender.mjs)
  # once the address is printed.
  WIF_PRERENDER=0 node scripts/assemble.mjs
else
  # npm test: the pages the tests read (the reference pages' models and devices and the first
  # six of each); WIF_PAGES_LIMIT= (empty) draws every page, as npm start does.
  WIF_PAGES_LIMIT=${WIF_PAGES_LIMIT-6} node scripts/assemble.mjs
fi
