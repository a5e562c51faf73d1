#include "willitfit/calibration/bench_paste.hpp"
#include "willitfit/base/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include "willitfit/catalog/catalog.hpp"
#include "willitfit/base/error.hpp"
#include "willitfit/estimate/estimate.hpp"
#include "willitfit/base/json_util.hpp"

namespace wif {
namespace {

using nlohmann::json;

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

using text::lower;

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string t = trim(line);
  if (t.empty() || t.front() != '|') return out;
  t = t.substr(1);
  if (!t.empty() && t.back() == '|') t.pop_back();
  std::size_t pos = 0;
  while (true) {
    const std::size_t e = t.find('|', pos);
    out.push_back(trim(t.substr(pos, e == std::string::npos ? std::string::npos : e - pos)));
    if (e == std::string::npos) break;
    pos = e + 1;
  }
  return out;
}

// One parsed llama-bench row before matching.
struct Row {
  int line = 0;
  std::string model_str, backend, test, gpu_info;
  double tps = 0, tps_std = 0, size_gib = 0, params_b = 0;
  std::int64_t n = 0, depth = 0, ngl = -1, n_ubatch = 512;
  int flash_attn = -1;
  std::string kind;
};

Error row_error(const std::string& code, int line, const std::string& msg) {
  return Error{code, "text:line " + std::to_string(line), msg};
}

bool parse_test(const std::string& test, Row& r) {
  static const std::regex re(R"(^(pp|tg)(\d+)(?: @ d(\d+))?$)");
  std::smatch m;
  if (!std::regex_match(test, m, re)) return false;
  r.kind = m[1];
  r.n = std::stoll(m[2]);
  r.depth = m[3].matched ? std::stoll(m[3]) : 0;
  r.test = test;
  return r.n > 0;
}

double leading_number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? -1 : v;
}

// Markdown table rows (the default llama-bench output).
std::vector<Row> parse_markdown(const std::vector<std::string>& lines, std::vector<Error>& errors) {
  std::vector<Row> rows;
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    const auto c = cells(lines[i]);
    if (c.empty()) continue;
    if (std::find(c.begin(), c.end(), "test") != c.end() && std::find(c.begin(), c.end(), "t/s") != c.end()) {
      col.clear();
      for (std::size_t k = 0; k < c.size(); ++k) col[c[k]] = k;
      continue;
    }
    if (c[0].find("---") != std::string::npos) continue;
    if (col.empty()) continue;
    if (c.size() != col.size()) {
      errors.push_back(row_error("bad_row", ln, "the row has " + std::to_string(c.size()) + " cells, the header " +
                                                     std::to_string(col.size())));
      continue;
    }
    Row r;
    r.line = ln;
    auto get = [&](const char* k) { const auto it = col.find(k); return it == col.end() ? std::string() : c[it->second]; };
    r.model_str = get("model");
    r.backend = get("backend");
    if (!parse_test(get("test"), r)) {
      errors.push_back(row_error("bad_test", ln, "test '" + get("test") + "' is not ppN, tgN or ppN @ dM"));
      continue;
    }
    const std::string ts = get("t/s");
    r.tps = leading_number(ts);
    if (const auto pm = ts.find("±"); pm != std::string::npos) r.tps_std = leading_number(trim(ts.substr(pm + 2)));
    if (!(r.tps > 0) || !std::isfinite(r.tps)) {
      errors.push_back(row_error("bad_value", ln, "t/s '" + ts + "' is not a positive number"));
      continue;
    }
    r.size_gib = leading_number(get("size"));
    r.params_b = leading_number(get("params"));
    if (!get("ngl").empty()) r.ngl = static_cast<std::int64_t>(leading_number(get("ngl")));
    if (!get("n_ubatch").empty()) r.n_ubatch = static_cast<std::int64_t>(leading_number(get("n_ubatch")));
    if (!get("fa").empty()) r.flash_attn = get("fa") == "1" || lower(get("fa")) == "on" || lower(get("fa")) == "true";
    rows.push_back(r);
  }
  return rows;
}

// `-o json` (one array) or `-o jsonl` (one object a line).
Row json_row(const json& o, int line, std::vector<Error>& errors, bool& ok) {
  Row r;
  r.line = line;
  ok = false;
  if (!o.is_object()) { errors.push_back(row_error("bad_type", line, "expected a llama-bench JSON object")); return r; }
  auto num = [&](const char* k, double d) { return o.contains(k) && o[k].is_number() ? o[k].get<double>() : d; };
  auto s = [&](const char* k) { return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string(); };
  r.model_str = s("model_type");
  r.backend = s("backends");
  r.gpu_info = s("gpu_info");
  const auto np = static_cast<std::int64_t>(num("n_prompt", 0)), ng = static_cast<std::int64_t>(num("n_gen", 0));
  r.depth = static_cast<std::int64_t>(num("n_depth", 0));
  if ((np > 0) == (ng > 0)) { errors.push_back(row_error("bad_test", line, "a row needs n_prompt or n_gen (one of them)")); return r; }
  r.kind = np > 0 ? "pp" : "tg";
  r.n = np > 0 ? np : ng;
  r.test = r.kind + std::to_string(r.n) + (r.depth > 0 ? " @ d" + std::to_string(r.depth) : "");
  r.tps = num("avg_ts", 0);
  r.tps_std = num("stddev_ts", 0);
  if (!(r.tps > 0) || !std::isfinite(r.tps)) { errors.push_back(row_error("bad_value", line, "avg_ts is not a positive number")); return r; }
  r.size_gib = num("model_size", 0) / 1073741824.0;
  r.params_b = num("model_n_params", 0) / 1e9;
  r.ngl = static_cast<std::int64_t>(num("n_gpu_layers", -1));
  r.n_ubatch = static_cast<std::int64_t>(num("n_ubatch", 512));
  if (o.contains("flash_attn")) r.flash_attn = o["flash_attn"].is_boolean() ? o["flash_attn"].get<bool>() : num("flash_attn", 0) != 0;
  ok = true;
  return r;
}

}  // namespace

std::string quant_from_ftype_name(const std::string& ftype) {
  static const std::map<std::string, std::string> names = {
      {"F32", "F32"}, {"F16", "F16"}, {"BF16", "BF16"}, {"Q4_0", "Q4_0"}, {"Q4_1", "Q4_1"}, {"Q5_0", "Q5_0"},
      {"Q5_1", "Q5_1"}, {"Q8_0", "Q8_0"}, {"Q2_K - Medium", "Q2_K"}, {"Q2_K - Small", "Q2_K_S"},
      {"Q3_K - Small", "Q3_K_S"}, {"Q3_K - Medium", "Q3_K_M"}, {"Q3_K - Large", "Q3_K_L"},
      {"Q4_K - Small", "Q4_K_S"}, {"Q4_K - Medium", "Q4_K_M"}, {"Q5_K - Small", "Q5_K_S"},
      {"Q5_K - Medium", "Q5_K_M"}, {"Q6_K", "Q6_K"}, {"IQ2_XXS - 2.0625 bpw", "IQ2_XXS"},
      {"IQ2_XS - 2.3125 bpw", "IQ2_XS"}, {"IQ2_S - 2.5 bpw", "IQ2_S"}, {"IQ2_M - 2.7 bpw", "IQ2_M"},
      {"IQ3_XS - 3.3 bpw", "IQ3_XS"}, {"IQ3_XXS - 3.0625 bpw", "IQ3_XXS"}, {"IQ1_S - 1.5625 bpw", "IQ1_S"},
      {"IQ1_M - 1.75 bpw", "IQ1_M"}, {"IQ4_NL - 4.5 bpw", "IQ4_NL"}, {"IQ3_S - 3.4375 bpw", "IQ3_S"},
      {"IQ3_S mix - 3.66 bpw", "IQ3_M"}, {"IQ4_XS - 4.25 bpw", "IQ4_XS"}, {"MXFP4 MoE", "MXFP4_MOE"},
      {"TQ1_0 - 1.69 bpw ternary", "TQ1_0"}, {"TQ2_0 - 2.06 bpw ternary", "TQ2_0"}};
  // The model string is "<arch> <size> <ftype>": the longest known suffix wins.
  std::string best;
  std::size_t best_len = 0;
  for (const auto& [name, id] : names)
    if (ftype.size() >= name.size() && ftype.compare(ftype.size() - name.size(), name.size(), name) == 0 &&
        name.size() > best_len && (ftype.size() == name.size() || ftype[ftype.size() - name.size() - 1] == ' ')) {
      best = id;
      best_len = name.size();
    }
  return best;
}

json bench_paste(const Catalog& cat, const json& q) {
  if (!q.is_object()) throw InputError("bad_type", "", "a bench-paste request is one JSON object");
  const std::string text = req_str(q, "text", "");
  const std::string hw = req_str(q, "hardware", "");
  const Device* dev = cat.find_device(hw);
  if (!dev) throw InputError("unknown_hardware", "hardware", "no device '" + hw + "' in the catalog");
  const int count = static_cast<int>(opt_int(q, "count", "", 1, 64).value_or(1));
  const std::string model_req = opt_str(q, "model", "").value_or("");
  const std::string quant_req = opt_str(q, "quant", "").value_or("");
  if (!model_req.empty() && !cat.find_model(model_req))
    throw InputError("unknown_model", "model", "no model '" + model_req + "' in the catalog");

  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  std::vector<Error> errors;
  std::vector<Row> rows;
  std::string format;
  const std::string t = trim(text);
  if (!t.empty() && (t.front() == '[' || t.front() == '{')) {
    format = t.front() == '[' ? "json" : "jsonl";
    if (format == "json") {
      json doc;
      try {
        doc = json::parse(text);
      } catch (const json::parse_error& e) {
        // The parser gives a byte offset: name the line it falls on.
        const std::size_t at = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());  // e.byte counts from 1
        const int ln = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
        throw InputError("bad_json", "text:line " + std::to_string(ln), "the paste is not valid JSON");
      }
      if (!doc.is_array()) throw InputError("bad_type", "text:line 1", "llama-bench -o json prints one array");
      for (std::size_t i = 0; i < doc.size(); ++i) {
        bool ok = false;
        Row r = json_row(doc[i], 0, errors, ok);
        r.line = 0;
        if (ok) rows.push_back(r);
      }
      // Lines of a pretty-printed array are not per row: number rows by their index instead.
      for (std::size_t i = 0; i < rows.size(); ++i) rows[i].line = static_cast<int>(i) + 1;
    } else {
      for (std::size_t i = 0; i < lines.size(); ++i) {
        if (trim(lines[i]).empty()) continue;
        const int ln = static_cast<int>(i) + 1;
        json o;
        try {
          o = json::parse(lines[i]);
        } catch (const json::parse_error&) {
          errors.push_back(row_error("bad_json", ln, "the line is not a JSON object"));
          continue;
        }
        bool ok = false;
        Row r = json_row(o, ln, errors, ok);
        if (ok) rows.push_back(r);
      }
    }
  } else {
    format = "markdown";
    rows = parse_markdown(lines, errors);
  }
  if (rows.empty()) {
    if (!errors.empty()) throw InputError(errors.front().code, errors.front().path, errors.front().message);
    int first = 1;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (!trim(lines[i]).empty()) { first = static_cast<int>(i) + 1; break; }
    throw InputError("no_bench_rows", "text:line " + std::to_string(first),
                     "no llama-bench row found (expected its markdown table with test and t/s columns, or -o json)");
  }

  // Model strings of the published rows -> (model id, quant id), through bench_mapping.json.
  std::map<std::string, std::pair<std::string, std::string>> known;
  if (const json* map = cat.document("measurements/bench_mapping.json"))
    for (const auto& row : cat.measurements()) {
      if (!row.contains("llama_bench_model_str") || !row["llama_bench_model_str"].is_string()) continue;
      std::string model_id, quant_id;
      for (const char* key : {"models", "quants"})
        if (map->contains(key) && (*map)[key].is_array())
          for (const auto& e : (*map)[key])
            if (e.is_object() && e.value("match", "") == row.value(key == std::string("models") ? "model" : "quant", ""))
              (key == std::string("models") ? model_id : quant_id) = e.value("id", "");
      if (!model_id.empty()) known.emplace(row["llama_bench_model_str"].get<std::string>(), std::make_pair(model_id, quant_id));
    }

  json out_rows = json::array();
  int matched = 0;
  for (const Row& r : rows) {
    json o = {{"line", r.line}, {"test", r.test}, {"kind", r.kind}, {"measured_tps", r.tps}, {"model_str", r.model_str},
              {"backend", r.backend}};
    if (r.tps_std > 0) o["measured_std"] = r.tps_std;
    std::string model_id = model_req, quant_id = quant_req;
    const auto k = known.find(r.model_str);
    if (model_id.empty() && k != known.end()) model_id = k->second.first;
    if (quant_id.empty()) quant_id = quant_from_ftype_name(r.model_str);
    if (quant_id.empty() && k != known.end()) quant_id = k->second.second;
    auto fail = [&](const std::string& code, const std::string& msg) {
      o["error"] = {{"code", code}, {"path", "text:line " + std::to_string(r.line)}, {"message", msg}};
      out_rows.push_back(o);
    };
    if (model_id.empty() && r.params_b > 0) {
      // By architecture and parameter count: llama-bench prints "<arch> <size> <ftype>" and the
      // exact parameter count; a catalog model of that architecture within 2% is the match.
      const std::string arch = lower(r.model_str.substr(0, r.model_str.find(' ')));
      std::vector<std::string> hits;
      for (const auto& m : cat.models())
        if (lower(m.arch.model_type) == arch && std::fabs(m.params_total_b - r.params_b) <= 0.02 * r.params_b) hits.push_back(m.id);
      // Models of one shape (fine-tunes of one base) predict the same speed: take the first, list the rest.
      bool same_shape = hits.size() > 1;
      for (std::size_t h = 1; same_shape && h < hits.size(); ++h) {
        const ModelEntry* x = cat.find_model(hits[0]);
        const ModelEntry* y = cat.find_model(hits[h]);
        same_shape = x->arch.n_embd == y->arch.n_embd && x->arch.n_layer_main() == y->arch.n_layer_main() &&
                     std::fabs(x->params_total_b - y->params_total_b) <= 0.005 * x->params_total_b;
      }
      if (same_shape) {
        o["model_alternatives"] = std::vector<std::string>(hits.begin() + 1, hits.end());
        hits.resize(1);
      }
      if (hits.size() > 1) {
        std::string list;
        for (const auto& h : hits) list += (list.empty() ? "" : ", ") + h;
        fail("model_ambiguous", "'" + r.model_str + "' fits several catalog models (" + list + "); give \"model\"");
        continue;
      }
      if (hits.size() == 1) model_id = hits.front();
    }
    if (model_id.empty()) { fail("model_not_matched", "model '" + r.model_str + "' is not one the catalog can name; give \"model\""); continue; }
    if (quant_id.empty()) { fail("quant_not_matched", "no quant in '" + r.model_str + "'; give \"quant\""); continue; }
    json req = {{"model", model_id}, {"quant", quant_id}, {"hardware", dev->id}, {"count", count},
                {"context", r.depth + r.n + (r.kind == "tg" ? 0 : 1)}, {"ubatch", r.n_ubatch}, {"depth", r.depth},
                {"prompt", r.kind == "pp" ? r.n : 1}, {"gen", r.kind == "tg" ? r.n : 1}, {"detail", "summary"}};
    if (r.flash_attn >= 0) req["flash_attn"] = r.flash_attn == 1;
    if (!r.backend.empty()) req["backend"] = lower(r.backend.substr(0, r.backend.find(',')));
    if (r.ngl >= 0 && r.ngl < 99) req["ngl"] = r.ngl;
    try {
      const EstimateRequest er = parse_request(cat, req);
      const Estimate est = run_estimate(cat, er);
      const json doc = estimate_to_json(er, est);
      o["model"] = model_id;
      o["quant"] = quant_id;
      o["hardware"] = dev->id;
      if (!doc.contains("speed")) {
        fail(doc.contains("speed_unavailable") ? "engine_not_supported" : "no_prediction",
             "no speed for this model on this device (" + doc.value("verdict", std::string("?")) + ")");
        continue;
      }
      const json& s = doc["speed"];
      const double pred = r.kind == "tg" ? s.value("gen_avg_tps", 0.0) : s.value("prefill_tps", 0.0);
      const double lo = r.kind == "tg" ? s.value("decode_tps_low", 0.0) / std::max(1e-9, s.value("decode_tps", 1.0)) * pred
                                       : s.value("prefill_tps_low", 0.0);
      const double hi = r.kind == "tg" ? s.value("decode_tps_high", 0.0) / std::max(1e-9, s.value("decode_tps", 1.0)) * pred
                                       : s.value("prefill_tps_high", 0.0);
      if (!(pred > 0)) { fail("no_prediction", "the model gives no figure for this test"); continue; }
      o["predicted_tps"] = pred;
      o["predicted_low"] = lo;
      o["predicted_high"] = hi;
      o["error_pct"] = (pred - r.tps) / r.tps * 100.0;
      o["inside_range"] = r.tps >= lo && r.tps <= hi;
      o["label"] = "measured";  // this row is the measurement
      json data_row = {{"model", model_id}, {"quant", quant_id}, {"hardware", dev->name}, {"hardware_id", dev->id},
                       {"gpu_count", count}, {"backend", r.backend}, {"test", r.test}, {"tps", r.tps},
                       {"llama_bench_model_str", r.model_str}, {"n_ubatch", r.n_ubatch}, {"tool", "llama-bench"},
                       {"source", "user paste"}};
      if (r.tps_std > 0) data_row["tps_std"] = r.tps_std;
      if (r.ngl >= 0) data_row["ngl"] = r.ngl;
      if (r.flash_attn >= 0) data_row["flash_attn"] = r.flash_attn;
      if (r.size_gib > 0) data_row["size_gib"] = r.size_gib;
      if (r.params_b > 0) data_row["params_b"] = r.params_b;
      if (!r.gpu_info.empty()) data_row["gpu_info"] = r.gpu_info;
      o["data_row"] = data_row;
      ++matched;
      out_rows.push_back(o);
    } catch (const InputError& e) {
      fail(e.error().code, e.error().message);
    }
  }
  json errs = json::array();
  for (const auto& e : errors) errs.push_back({{"code", e.code}, {"path", e.path}, {"message", e.message}});
  return {{"bench_paste", {{"format", format}, {"hardware", dev->id}, {"count", count}, {"rows", out_rows},
                           {"matched", matched}, {"errors", errs}}}};
}

}  // namespace wif
