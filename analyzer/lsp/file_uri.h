#pragma once

// file:// URIs (RFC 8089) as LSP clients send them, to and from file system paths.

#include <optional>
#include <string>
#include <string_view>

namespace graphsafe::lsp {

// "file:///home/a/b%20c.py" -> "/home/a/b c.py"; nullopt for other schemes or bad escapes.
std::optional<std::string> pathFromUri(std::string_view uri);

// "/home/a/b c.py" -> "file:///home/a/b%20c.py". A relative path is made absolute first.
std::string uriFromPath(std::string_view path);

}  // namespace graphsafe::lsp
