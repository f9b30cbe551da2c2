#include "emit/templates.hpp"

#include <system_error>

#include <kainjow/mustache.hpp>

#include "core/errors.hpp"
#include "core/files.hpp"

namespace wheelmod::emit {

namespace fs = std::filesystem;
namespace mustache = kainjow::mustache;

namespace {

mustache::data to_data(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      mustache::data object{mustache::data::type::object};
      for (const auto& [key, item] : value.items()) object.set(key, to_data(item));
      return object;
    }
    case nlohmann::json::value_t::array: {
      mustache::data list{mustache::data::type::list};
      for (const auto& item : value) list.push_back(to_data(item));
      return list;
    }
    case nlohmann::json::value_t::string:
      return mustache::data{value.get<std::string>()};
    case nlohmann::json::value_t::boolean:
      return mustache::data{value.get<bool>()};
    case nlohmann::json::value_t::null:
      return mustache::data{false};
    default:  // numbers
      return mustache::data{value.dump()};
  }
}

std::string read_template(const fs::path& file) {
  try {
    return read_file(file);
  } catch (const IoError&) {
    throw UsageError(file.string(), "cannot read the template",
                     "check --templates, or reinstall wheelmod's shared files");
  }
}

}  // namespace

TemplateSet::TemplateSet(fs::path shipped_dir, std::optional<fs::path> site_dir)
    : m_shipped_dir(std::move(shipped_dir)), m_site_dir(std::move(site_dir)) {}

fs::path TemplateSet::locate(std::string_view name) const {
  std::error_code error;
  if (m_site_dir) {
    const fs::path site = *m_site_dir / name;
    if (fs::is_regular_file(site, error)) return site;
  }
  return m_shipped_dir / name;
}

std::string TemplateSet::render(std::string_view name, const nlohmann::json& context) const {
  const fs::path file = locate(name);
  mustache::mustache view{read_template(file)};
  if (!view.is_valid())
    throw UsageError(file.string(), "the template does not parse: " + view.error_message());
  // The outputs are Python, Lua and Tcl: no HTML escaping, ever.
  view.set_custom_escape([](const std::string& text) { return text; });
  std::string out = view.render(to_data(context));
  if (!view.is_valid())
    throw UsageError(file.string(), "the template does not render: " + view.error_message());
  return out;
}

fs::path TemplateSet::default_dir() { return shipped_data_dir("templates"); }

}  // namespace wheelmod::emit
