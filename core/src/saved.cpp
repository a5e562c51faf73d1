#include "willitfit/saved.hpp"

#include "willitfit/api.hpp"

#include "willitfit/estimate.hpp"
#include "willitfit/json_util.hpp"

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
  const json doc = json::parse(stored_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    out["rejected"].push_back(reject("document", -1, stored_text,
                                     {doc.is_discarded() ? "bad_json" : "bad_type", "",
                                      "the saved entries are not a JSON object"}));
    return out.dump();
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
  return out.dump();
}

}  // namespace wif
