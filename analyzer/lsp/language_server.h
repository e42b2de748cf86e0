#pragma once

// `graphsafe lsp`: a Language Server (LSP 3.17) over a pair of file descriptors, normally
// stdin and stdout. The open documents are analyzed with the workspace's other files (so a
// file's findings do not depend on which files are open, and a change to a callee updates the
// files that call it), on a thread of their own (background_analysis.h), after a short quiet
// time following each change; findings of the open documents are pushed with
// textDocument/publishDiagnostics, or pulled with textDocument/diagnostic when the client
// supports that. A request that needs findings waits for the analysis of the changes sent
// before it. Malformed input gets JSON-RPC errors and never stops the server.

namespace graphsafe::lsp {

// Serves until the client sends `exit` or closes the input. Returns the process exit code:
// 0 after shutdown then exit, 1 otherwise (as the protocol asks).
int runLanguageServer(int input_fd, int output_fd);

}  // namespace graphsafe::lsp
