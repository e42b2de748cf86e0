#pragma once

// `graphsafe lsp`: a Language Server (LSP 3.17) over a pair of file descriptors, normally
// stdin and stdout. Open documents are analyzed together (so a change to a callee updates the
// files that call it), after a short quiet time following each change; findings are pushed
// with textDocument/publishDiagnostics, or pulled with textDocument/diagnostic when the client
// supports that. Malformed input gets JSON-RPC errors and never stops the server.

namespace graphsafe::lsp {

// Serves until the client sends `exit` or closes the input. Returns the process exit code:
// 0 after shutdown then exit, 1 otherwise (as the protocol asks).
int runLanguageServer(int input_fd, int output_fd);

}  // namespace graphsafe::lsp
