// Errors as data. Every failure the core reports to a caller is an Error with a stable code,
// the JSON path (or "<file>#<entry>.<field>") of the offending input and a message for people.
// Inside the core they travel as InputError exceptions; the API boundary turns them into
// {"error": {"code", "path", "message"}} documents, so no caller ever sees an abort.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wif {

struct Error {
  Error() = default;
  Error(std::string c, std::string p, std::string m, std::vector<std::string> acc = {}, std::uint64_t needed = 0)
      : code(std::move(c)), path(std::move(p)), message(std::move(m)), accepted(std::move(acc)), needed_bytes(needed) {}
  std::string code;     // e.g. "unknown_model", "bad_value", "gguf_truncated"
  std::string path;     // e.g. "context", "model.config.num_hidden_layers"
  std::string message;  // one sentence a person can act on
  // Machine-readable parts of the error, so no surface parses the message:
  std::vector<std::string> accepted;  // values the field accepts (bad_value, unknown_quant …), when a list
  std::uint64_t needed_bytes = 0;     // gguf_truncated: how many leading bytes of the file to send
  // Named values the message quotes, as data (unsupported_model_type: {"model_type", "…"}).
  std::vector<std::pair<std::string, std::string>> values;
};

class InputError : public std::runtime_error {
 public:
  InputError(std::string code, std::string path, const std::string& message)
      : std::runtime_error(message), err_{std::move(code), std::move(path), message} {}
  InputError(std::string code, std::string path, const std::string& message, std::vector<std::string> accepted)
      : std::runtime_error(message), err_{std::move(code), std::move(path), message, std::move(accepted)} {}
  explicit InputError(Error e) : std::runtime_error(e.message), err_(std::move(e)) {}
  const Error& error() const { return err_; }

 private:
  Error err_;
};

}  // namespace wif
