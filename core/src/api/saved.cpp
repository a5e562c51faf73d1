#include "willitfit/api/saved.hpp"

#include "willitfit/api/api.hpp"
#include "willitfit/base/json_util.hpp"
#include "willitfit/estimate/estimate.hpp"

namespace wif {
namespace {

json error_obj(const Error& e) { return {{"code", e.code}, {"path", e.path}, {"message", e.message}}; }

json reject(const std::string& kind, std::int64_t index, const json& entry, const Error& e) {
  return {{"kind", kind}, {"index", index}, {"entry", entry}, {"error", error_obj(e)}};
}

}  // namespace

std::string api_check_saved(const Catalog& cat, const std::string& stored_text) {
  json out = {{"schema_version", kSchemaVersion}, {"version", kSavedVersion}, {"models", json::array()},
              {"devices", json::array()}, {"rejected", json::array()}};
  // The text set aside for a document that cannot be read: all of it when short, else its start
  // (a multi-megabyte blob set aside whole would fill the storage it came from).
  auto aside = [&stored_text]() -> json {
    if (stored_text.size() <= kSavedAsideBytes) return stored_text;
    return stored_text.substr(0, kSavedAsideBytes);
  };
  json doc;
  try {
    check_json_bounds(stored_text, "", kMaxSavedBytes);
    doc = json::parse(stored_text, nullptr, false);
  } catch (const InputError& e) {
    json r = reject("document", -1, aside(), e.error());
    r["bytes"] = stored_text.size();
    out["rejected"].push_back(r);
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  if (doc.is_discarded() || !doc.is_object()) {
    json r = reject("document", -1, aside(),
                    {doc.is_discarded() ? "bad_json" : "bad_type", "", "the saved entries are not a JSON object"});
    r["bytes"] = stored_text.size();
    out["rejected"].push_back(r);
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  const json* ver = doc.contains("version") ? &doc["version"] : nullptr;
  const bool numeric = ver && ver->is_number_integer();
  const std::int64_t v = numeric ? ver->get<std::int64_t>() : 0;
  for (const char* kind : {"models", "devices"}) {
    if (!doc.contains(kind)) continue;
    const json& list = doc[kind];
    if (!list.is_array()) {
      out["rejected"].push_back(reject(kind, -1, list, {"bad_type", kind, std::string("'") + kind + "' must be a list"}));
      continue;
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = std::string(kind) + "[" + std::to_string(i) + "]";
      if (i >= kMaxSavedEntries) {  // kept aside, not validated: bounds the work of one load
        out["rejected"].push_back(reject(kind, static_cast<std::int64_t>(i), list[i],
            {"too_many_entries", path, "at most " + std::to_string(kMaxSavedEntries) + " saved " + kind + " are read"}));
        continue;
      }
      const auto idx = static_cast<std::int64_t>(i);
      if (v != kSavedVersion) {
        const bool newer = numeric && v > kSavedVersion;
        out["rejected"].push_back(reject(kind, idx, list[i],
            {newer ? "unsupported_version" : "old_format", "version",
             newer ? "saved by a newer version of the page" : "saved in an older format; re-enter or re-import it"}));
        continue;
      }
      try {
        if (std::string(kind) == "models") {
          if (!list[i].is_object() || !list[i].contains("config"))
            throw InputError("missing_field", join_path(path, "config"), "a saved model needs its config.json");
          (void)resolve_model(cat, list[i], path);
        } else {
          (void)device_from_json(list[i], path);
        }
        out[kind].push_back(list[i]);
      } catch (const InputError& e) {
        out["rejected"].push_back(reject(kind, idx, list[i], e.error()));
      } catch (const std::exception& e) {
        out["rejected"].push_back(reject(kind, idx, list[i], {"bad_entry", path, e.what()}));
      }
    }
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace wif
