#include "hub_client.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <optional>

#include "willitfit/api/api.hpp"
#include "willitfit/base/base64.hpp"

namespace wif_cli {
namespace {

using nlohmann::json;

struct Http {
  long status = 0;
  std::string body;
  std::string location;
  std::string error_code;   // X-Error-Code
  std::string retry_after;
};

struct Fail {
  std::string code, message;
};

std::size_t on_body(char* p, std::size_t size, std::size_t n, void* ud) {
  auto* s = static_cast<std::pair<std::string*, std::size_t>*>(ud);
  const std::size_t k = size * n;
  if (s->first->size() + k > s->second) return 0;   // past what was asked for: stop the transfer
  s->first->append(p, k);
  return k;
}

std::size_t on_header(char* p, std::size_t size, std::size_t n, void* ud) {
  auto* h = static_cast<Http*>(ud);
  const std::string line(p, size * n);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string key = line.substr(0, colon), val = line.substr(colon + 1);
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    while (!val.empty() && (val.front() == ' ')) val.erase(0, 1);
    while (!val.empty() && (val.back() == '\r' || val.back() == '\n' || val.back() == ' ')) val.pop_back();
    if (key == "x-error-code") h->error_code = val;
    if (key == "retry-after") h->retry_after = val;
    if (key == "location") h->location = val;
  }
  return size * n;
}

std::string origin(const std::string& url) {
  const auto s = url.find("://");
  if (s == std::string::npos) return "";
  const auto e = url.find('/', s + 3);
  return url.substr(0, e);
}

// One GET (Range bytes=0-(range-1) when range > 0), the redirect followed by hand so that the
// token never leaves the Hub's origin. Each request has a 30 s timeout.
std::optional<Fail> get(const std::string& url0, std::uint64_t range, const std::string& token, const std::string& hub_origin,
                        bool api, Http& out, json& log) {
  std::string url = url0;
  for (int hop = 0; hop < 5; ++hop) {
    CURL* c = curl_easy_init();
    if (!c) return Fail{"hub_network", "libcurl could not start"};
    out = Http{};
    std::pair<std::string*, std::size_t> sink{&out.body, range ? static_cast<std::size_t>(range) : std::size_t{256} << 20};
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, api ? "Accept: application/json" : "Accept: */*");
    if (!token.empty() && origin(url) == hub_origin) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    const std::string r = "Range: bytes=0-" + std::to_string(range - 1);
    if (range) headers = curl_slist_append(headers, r.c_str());
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "willitfit-cli");
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &out);
    const CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);
    log.push_back({{"url", url}, {"status", out.status}, {"bytes", out.body.size()}});
    if (rc == CURLE_OPERATION_TIMEDOUT) return Fail{"hub_timeout", "no answer from the Hub within 30 s"};
    if (rc == CURLE_WRITE_ERROR && range && out.body.size() >= range) {
      out.body.resize(static_cast<std::size_t>(range));   // a server that ignored Range: keep what was asked
      return std::nullopt;
    }
    if (rc != CURLE_OK) return Fail{"hub_network", std::string("the Hub cannot be reached: ") + curl_easy_strerror(rc)};
    if (out.status >= 300 && out.status < 400 && !out.location.empty()) {
      url = out.location.rfind("http", 0) == 0 ? out.location : origin(url) + out.location;
      continue;
    }
    if (out.status == 429)
      return Fail{"hub_rate_limited", "the Hub asks to wait" + (out.retry_after.empty() ? "" : " " + out.retry_after + " s") +
                                          " before the next request"};
    if (out.error_code == "GatedRepo" || (!api && (out.status == 401 || out.status == 403)))
      return Fail{"hub_gated", "this model is gated: accept its licence on the Hub, then set HF_TOKEN"};
    if (out.error_code == "RepoNotFound" || out.status == 404 || (api && out.status == 401))
      return Fail{"hub_not_found", "no such model on the Hub (or it is private)"};
    if (out.status < 200 || out.status >= 300) return Fail{"hub_http", "the Hub answered " + std::to_string(out.status)};
    return std::nullopt;
  }
  return Fail{"hub_http", "too many redirects"};
}

std::string url_path(const std::string& p) {
  std::string o;
  for (unsigned char c : p) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') o += static_cast<char>(c);
    else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      o += b;
    }
  }
  return o;
}

}  // namespace

bool hub_model(const std::string& text, const std::string& quant, bool offline, json& model, std::string& quant_out,
               json& hub, std::string& error_json, const std::string& mmproj_file) {
  const json ref = json::parse(wif::api_hub_ref(text));
  if (ref.contains("error")) {
    error_json = ref.dump();
    return false;
  }
  if (offline) {
    error_json = wif::error_json({"hub_offline", "model", "--offline: '" + ref["repo"].get<std::string>() +
                                                              "' is on the Hub and nothing is fetched offline"});
    return false;
  }
  const char* env = std::getenv("WILLITFIT_HUB_URL");   // tests only
  std::string base = env && *env ? env : "https://huggingface.co";
  while (!base.empty() && base.back() == '/') base.pop_back();
  const char* tok = std::getenv("HF_TOKEN");
  const std::string token = tok ? tok : "";
  const std::string hub_origin = origin(base);
  const std::string repo = ref["repo"].get<std::string>();
  json log = json::array();
  auto failed = [&](const Fail& f) {
    error_json = wif::error_json({f.code, "model", f.message});
    return false;
  };
  curl_global_init(CURL_GLOBAL_DEFAULT);
  Http h;
  const std::string api = base + "/api/models/" + repo + (ref.contains("revision") ? "/revision/" + url_path(ref["revision"].get<std::string>()) : "") + "?blobs=true";
  if (auto f = get(api, 0, token, hub_origin, true, h, log)) return failed(*f);
  json doc = {{"repo", repo}, {"gguf", json::object()}, {"safetensors", json::object()}};
  doc["info"] = json::parse(h.body, nullptr, false);
  if (ref.contains("file")) doc["file"] = ref["file"];
  const std::string q = ref.contains("quant") ? ref["quant"].get<std::string>() : quant;
  if (!q.empty()) doc["quant"] = q;
  if (!mmproj_file.empty()) doc["mmproj_file"] = mmproj_file;
  json r;
  for (int round = 0;; ++round) {
    r = json::parse(wif::api_hub_repo(doc.dump()));
    if (r.contains("error")) {
      error_json = r.dump();
      return false;
    }
    if (r["read"].empty()) break;
    if (round >= 12) return failed({"hub_http", "the header kept growing past what was read"});
    for (const auto& it : r["read"]) {
      const std::string kind = it["kind"].get<std::string>(), path = it["path"].get<std::string>();
      const std::string url = base + "/" + repo + "/resolve/" + r["revision"].get<std::string>() + "/" + url_path(path);
      const std::uint64_t bytes = kind == "config" ? 0 : it["bytes"].get<std::uint64_t>();
      if (auto f = get(url, bytes, token, hub_origin, false, h, log)) return failed(*f);
      if (kind == "config") doc["config"] = h.body;
      else doc[kind][path] = wif::base64_encode(reinterpret_cast<const std::uint8_t*>(h.body.data()), h.body.size());
    }
  }
  const json& row = r["quants"][r["chosen"].get<std::size_t>()];
  if (!row.contains("model"))
    return failed({"hub_no_plan", "the planner does not know '" + row["label"].get<std::string>() + "'"});
  model = row["model"];
  if (model.contains("header")) {
    model["gguf_header_base64"] = doc["gguf"][model["header"].get<std::string>()];
    model.erase("header");
  }
  if (model.contains("shards")) {   // a split file: the other shards' first bytes, in order
    json list = json::array();
    for (const auto& p : model["shards"]) list.push_back(doc["gguf"][p.get<std::string>()]);
    model["gguf_shards_base64"] = std::move(list);
    model.erase("shards");
  }
  if (model.contains("mmproj")) {   // the vision projector's header, read beside the model's
    model["mmproj_header_base64"] = doc["gguf"][model["mmproj"].get<std::string>()];
    model.erase("mmproj");
  }
  quant_out = row["quant"].get<std::string>();
  std::uint64_t bytes = 0;
  for (const auto& e : log) bytes += e["bytes"].get<std::uint64_t>();
  json row_out = row;
  row_out.erase("model");
  hub = {{"repo", repo}, {"revision", r["revision"]}, {"gated", r["gated"]}, {"format", r["format"]}, {"quant", row_out},
         {"requests", log.size()}, {"bytes_read", bytes}};
  if (r.contains("quantization")) hub["quantization"] = r["quantization"];
  if (r.contains("projector")) hub["projector"] = r["projector"];
  if (r.contains("mmproj_error")) hub["mmproj_error"] = r["mmproj_error"];
  if (r.contains("safetensors")) hub["safetensors"] = r["safetensors"];
  return true;
}

}  // namespace wif_cli
