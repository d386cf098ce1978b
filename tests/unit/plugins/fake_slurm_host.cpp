// Fakes of the functions a plugin takes from its host process (plugins/slurm_host.h), for unit
// tests that run plugin code outside Slurm: malloc'd strings and NULL-terminated environment
// arrays, as Slurm's own xmalloc'd ones look to the plugin. Log lines go to stderr.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "plugins/slurm_host.h"

namespace {

void vlog(const char* level, const char* fmt, va_list ap) {
    std::fprintf(stderr, "%s: ", level);
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
}

// The entry "name=..." of a NULL-terminated array, or -1.
int find_entry(char** env, const char* name) {
    const size_t len = std::strlen(name);
    for (int i = 0; env != nullptr && env[i] != nullptr; ++i) {
        if (std::strncmp(env[i], name, len) == 0 && env[i][len] == '=') return i;
    }
    return -1;
}

}  // namespace

extern "C" {

char* slurm_xstrdup(const char* str) { return str == nullptr ? nullptr : strdup(str); }

void slurm_xfree_ptr(void* ptr) { std::free(ptr); }

int slurm_env_array_overwrite(char*** array_ptr, const char* name, const char* value) {
    const std::string entry = std::string(name) + "=" + value;
    const int at = find_entry(*array_ptr, name);
    if (at >= 0) {
        std::free((*array_ptr)[at]);
        (*array_ptr)[at] = strdup(entry.c_str());
        return 1;
    }
    int n = 0;
    while (*array_ptr != nullptr && (*array_ptr)[n] != nullptr) ++n;
    auto* grown = static_cast<char**>(std::realloc(*array_ptr, sizeof(char*) * static_cast<size_t>(n + 2)));
    grown[n] = strdup(entry.c_str());
    grown[n + 1] = nullptr;
    *array_ptr = grown;
    return 1;
}

void slurm_unsetenvp(char** env, const char* name) {
    const int at = find_entry(env, name);
    if (at < 0) return;
    std::free(env[at]);
    for (int i = at; env[i] != nullptr; ++i) env[i] = env[i + 1];
}

void slurm_info(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog("info", fmt, ap);
    va_end(ap);
}

void slurm_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog("error", fmt, ap);
    va_end(ap);
}

void slurm_debug(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog("debug", fmt, ap);
    va_end(ap);
}

}  // extern "C"
