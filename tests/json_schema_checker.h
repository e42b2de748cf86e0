#pragma once

// A small JSON Schema (draft-04) checker for tests: the keywords the SARIF 2.1.0 schema uses
// ($ref into #/definitions, type, enum, properties, required, additionalProperties, items,
// minItems, uniqueItems, minimum, maximum, pattern, format uri/uri-reference, anyOf, oneOf,
// allOf, not). Annotations (description, default, title) are ignored. Returns one line per
// violation, naming the JSON pointer of the value at fault.

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace graphsafe::testing {

class JsonSchemaChecker {
 public:
  explicit JsonSchemaChecker(nlohmann::json schema) : root_(std::move(schema)) {}

  std::vector<std::string> validate(const nlohmann::json& instance) const {
    std::vector<std::string> errors;
    check(root_, instance, "", 0, errors);
    return errors;
  }

 private:
  using json = nlohmann::json;

  const json* resolve(const std::string& ref) const {
    if (!ref.starts_with("#/")) return nullptr;
    const json* at = &root_;
    std::size_t start = 2;
    while (start <= ref.size()) {
      std::size_t slash = ref.find('/', start);
      std::string key = ref.substr(start, slash == std::string::npos ? ref.npos : slash - start);
      if (!at->is_object() || !at->contains(key)) return nullptr;
      at = &(*at)[key];
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    return at;
  }

  static bool hasType(const json& value, const std::string& type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "boolean") return value.is_boolean();
    if (type == "null") return value.is_null();
    if (type == "integer") return value.is_number_integer();
    if (type == "number") return value.is_number();
    return false;
  }

  bool valid(const json& schema, const json& value, const std::string& where, int depth) const {
    std::vector<std::string> errors;
    check(schema, value, where, depth, errors);
    return errors.empty();
  }

  void check(const json& schema, const json& value, const std::string& where, int depth,
             std::vector<std::string>& errors) const {
    if (depth > 64) {
      errors.push_back(where + ": nested too deeply to check");
      return;
    }
    if (!schema.is_object()) return;
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      const json* target = resolve(ref->get<std::string>());
      if (target == nullptr) {
        errors.push_back(where + ": unresolved $ref " + ref->get<std::string>());
      } else {
        check(*target, value, where, depth + 1, errors);
      }
      return;  // draft-04: $ref replaces its siblings
    }
    if (auto type = schema.find("type"); type != schema.end()) {
      bool ok = false;
      if (type->is_string()) {
        ok = hasType(value, *type);
      } else {
        for (const json& one : *type) ok = ok || hasType(value, one);
      }
      if (!ok) {
        errors.push_back(where + ": expected type " + type->dump() + ", got " + value.type_name());
        return;
      }
    }
    if (auto values = schema.find("enum"); values != schema.end()) {
      bool ok = false;
      for (const json& allowed : *values) ok = ok || allowed == value;
      if (!ok) errors.push_back(where + ": " + value.dump() + " is not one of " + values->dump());
    }
    if (value.is_number()) {
      if (auto minimum = schema.find("minimum");
          minimum != schema.end() && value.get<double>() < minimum->get<double>()) {
        errors.push_back(where + ": " + value.dump() + " is below the minimum " + minimum->dump());
      }
      if (auto maximum = schema.find("maximum");
          maximum != schema.end() && value.get<double>() > maximum->get<double>()) {
        errors.push_back(where + ": " + value.dump() + " is above the maximum " + maximum->dump());
      }
    }
    if (value.is_string()) {
      const std::string& text = value.get_ref<const std::string&>();
      if (auto pattern = schema.find("pattern"); pattern != schema.end()) {
        try {
          if (!std::regex_search(text, std::regex(pattern->get<std::string>()))) {
            errors.push_back(where + ": '" + text + "' does not match " + pattern->dump());
          }
        } catch (const std::regex_error&) {
          // A pattern std::regex cannot compile is not checked.
        }
      }
      if (auto format = schema.find("format"); format != schema.end()) {
        bool uri = *format == "uri";
        bool reference = *format == "uri-reference";
        if ((uri || reference) && text.find_first_of(" \t\n\\") != std::string::npos) {
          errors.push_back(where + ": '" + text + "' is not a URI");
        }
        if (uri && text.find(':') == std::string::npos) {
          errors.push_back(where + ": '" + text + "' is not an absolute URI");
        }
      }
    }
    if (value.is_array()) {
      if (auto minimum = schema.find("minItems");
          minimum != schema.end() && value.size() < minimum->get<std::size_t>()) {
        errors.push_back(where + ": fewer than " + minimum->dump() + " items");
      }
      if (auto unique = schema.find("uniqueItems"); unique != schema.end() && *unique == true) {
        for (std::size_t i = 0; i < value.size(); ++i) {
          for (std::size_t k = i + 1; k < value.size(); ++k) {
            if (value[i] == value[k]) {
              errors.push_back(where + ": items " + std::to_string(i) + " and " +
                               std::to_string(k) + " are equal");
            }
          }
        }
      }
      if (auto items = schema.find("items"); items != schema.end() && items->is_object()) {
        for (std::size_t i = 0; i < value.size(); ++i) {
          check(*items, value[i], where + "/" + std::to_string(i), depth + 1, errors);
        }
      }
    }
    if (value.is_object()) {
      if (auto required = schema.find("required"); required != schema.end()) {
        for (const json& key : *required) {
          if (!value.contains(key.get<std::string>())) {
            errors.push_back(where + ": missing required property " + key.dump());
          }
        }
      }
      const json* properties = schema.contains("properties") ? &schema["properties"] : nullptr;
      auto additional = schema.find("additionalProperties");
      for (const auto& [key, member] : value.items()) {
        if (properties != nullptr && properties->contains(key)) {
          check((*properties)[key], member, where + "/" + key, depth + 1, errors);
        } else if (additional != schema.end()) {
          if (additional->is_boolean() && !additional->get<bool>()) {
            errors.push_back(where + ": property '" + key + "' is not allowed");
          } else if (additional->is_object()) {
            check(*additional, member, where + "/" + key, depth + 1, errors);
          }
        }
      }
    }
    if (auto all = schema.find("allOf"); all != schema.end()) {
      for (const json& one : *all) check(one, value, where, depth + 1, errors);
    }
    if (auto any = schema.find("anyOf"); any != schema.end()) {
      bool ok = false;
      for (const json& one : *any) ok = ok || valid(one, value, where, depth + 1);
      if (!ok) errors.push_back(where + ": matches none of anyOf");
    }
    if (auto one_of = schema.find("oneOf"); one_of != schema.end()) {
      int matches = 0;
      for (const json& one : *one_of) matches += valid(one, value, where, depth + 1) ? 1 : 0;
      if (matches != 1) {
        errors.push_back(where + ": matches " + std::to_string(matches) + " of oneOf, not 1");
      }
    }
    if (auto negated = schema.find("not"); negated != schema.end()) {
      if (valid(*negated, value, where, depth + 1)) errors.push_back(where + ": matches 'not'");
    }
  }

  nlohmann::json root_;
};

}  // namespace graphsafe::testing
