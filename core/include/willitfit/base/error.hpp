// Errors as data. Every failure the core reports to a caller is an Error with a stable code,
// the JSON path (or "<file>#<entry>.<field>") of the offending input and a message for people.
// Inside the core they travel as InputError exceptions; the API boundary turns them into
// {"error": {"code", "path", "message"}} documents, so no caller ever sees an abort.
#pragma once
#include <stdexcept>
#include <string>

namespace wif {

struct Error {
  std::string code;     // e.g. "unknown_model", "bad_value", "gguf_truncated"
  std::string path;     // e.g. "context", "model.config.num_hidden_layers"
  std::string message;  // one sentence a person can act on
};

class InputError : public std::runtime_error {
 public:
  InputError(std::string code, std::string path, const std::string& message)
      : std::runtime_error(message), err_{std::move(code), std::move(path), message} {}
  const Error& error() const { return err_; }

 private:
  Error err_;
};

}  // namespace wif
