// Saved custom models and devices (what the page keeps in browser storage between visits),
// checked on the way back in. Storage holds text written by an older page, a newer page, a
// browser extension or a person with devtools, so nothing in it is trusted: every entry is
// validated exactly as a request would validate it, and an entry that fails is *kept aside*
// with its error, never silently dropped, so the page can report it and offer it for repair.
//
// The document (version 1):
//   {"version": 1,
//    "models":  [{"id": "...", "name": "...", "config": {<config.json>}}, ...],
//    "devices": [{"name": "...", "kind": "gpu", "memory_gib": 24, "bandwidth_gbs": 1008, ...}, ...]}
// The answer of api_check_saved:
//   {"version": 1, "models": [<valid entries, as given>], "devices": [...],
//    "rejected": [{"kind": "models"|"devices"|"document", "index": i, "entry": <as stored>,
//                  "error": {"code", "path", "message"}}]}
// Codes: "bad_json" (storage text is not JSON; the whole text is kept under "entry"),
// "old_format" (no or an older "version": every entry is kept aside as-is), "unsupported_version"
// (written by a newer page), and any code the request validation gives (path inside the entry,
// e.g. "models[2].config.num_hidden_layers").
#pragma once
#include <cstddef>
#include <string>

#include "willitfit/catalog/catalog.hpp"

namespace wif {

/// Format version written by the current page.
constexpr int kSavedVersion = 1;
/// Saved text past 2 MiB, or nested past kMaxJsonDepth (json_util.hpp), is not parsed: the whole
/// document is set aside as "json_too_large" / "json_too_deep". A browser's storage holds about
/// 5 MB per site; 64 custom models of a few KB each are well under 1 MiB.
constexpr std::size_t kMaxSavedBytes = std::size_t{2} << 20;
/// An unreadable document is set aside as its first 4096 bytes, with "bytes" its full length.
constexpr std::size_t kSavedAsideBytes = 4096;
/// Entries past the 256th of a kind are set aside unread, code "too_many_entries".
constexpr std::size_t kMaxSavedEntries = 256;

/// Check the stored text; never throws.
std::string api_check_saved(const Catalog& cat, const std::string& stored_text);

}  // namespace wif
