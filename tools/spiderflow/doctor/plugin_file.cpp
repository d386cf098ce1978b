#include "tools/spiderflow/doctor/plugin_file.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace spiderflow::doctor {
namespace {

// Bounds every read by the file's size: a truncated or hostile file gives an error, not a crash.
class Reader {
public:
    explicit Reader(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {}
    ~Reader() {
        if (fd_ >= 0) ::close(fd_);
    }
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    int fd() const { return fd_; }
    uint64_t size = 0;
    bool read(uint64_t offset, void* out, uint64_t len) const {
        if (offset > size || len > size - offset) return false;
        auto* p = static_cast<char*>(out);
        while (len > 0) {
            const ssize_t n = ::pread(fd_, p, len, static_cast<off_t>(offset));
            if (n <= 0) return false;
            p += n;
            offset += static_cast<uint64_t>(n);
            len -= static_cast<uint64_t>(n);
        }
        return true;
    }

private:
    int fd_;
};

constexpr uint64_t kMaxTable = 64u << 20;  // a symbol or string table past this is not a plugin's

}  // namespace

PluginFile read_plugin_file(const std::string& path) {
    PluginFile out;
    Reader r(path);
    if (r.fd() < 0) {
        out.error = std::strerror(errno);
        return out;
    }
    struct stat st {};
    if (::fstat(r.fd(), &st) != 0 || !S_ISREG(st.st_mode)) {
        out.error = "not a regular file";
        return out;
    }
    r.size = static_cast<uint64_t>(st.st_size);
    Elf64_Ehdr eh{};
    if (!r.read(0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        out.error = "not an ELF file (a shared object built by make)";
        return out;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN || eh.e_shentsize != sizeof(Elf64_Shdr)) {
        out.error = "not a 64-bit ELF shared object";
        return out;
    }
    std::vector<Elf64_Shdr> sections(eh.e_shnum);
    if (eh.e_shnum == 0 || !r.read(eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) {
        out.error = "its section headers cannot be read (a truncated file?)";
        return out;
    }
    const Elf64_Shdr* dynsym = nullptr;
    for (const auto& s : sections)
        if (s.sh_type == SHT_DYNSYM) dynsym = &s;
    if (dynsym == nullptr || dynsym->sh_link >= sections.size() || dynsym->sh_size > kMaxTable ||
        sections[dynsym->sh_link].sh_size > kMaxTable) {
        out.error = "it exports no symbols";
        return out;
    }
    const Elf64_Shdr& strtab = sections[dynsym->sh_link];
    std::vector<Elf64_Sym> syms(dynsym->sh_size / sizeof(Elf64_Sym));
    std::string strings(strtab.sh_size, '\0');
    if (!r.read(dynsym->sh_offset, syms.data(), syms.size() * sizeof(Elf64_Sym)) ||
        !r.read(strtab.sh_offset, strings.data(), strings.size())) {
        out.error = "its symbol table cannot be read (a truncated file?)";
        return out;
    }
    // The bytes a defined symbol's value points at, from the section holding it.
    auto value_of = [&](const Elf64_Sym& s, std::string* bytes) {
        if (s.st_shndx == SHN_UNDEF || s.st_shndx >= sections.size()) return false;
        const Elf64_Shdr& sec = sections[s.st_shndx];
        if (sec.sh_type == SHT_NOBITS || s.st_value < sec.sh_addr || s.st_size > 4096) return false;
        bytes->assign(s.st_size, '\0');
        return r.read(sec.sh_offset + (s.st_value - sec.sh_addr), bytes->data(), s.st_size);
    };
    for (const auto& s : syms) {
        if (s.st_name >= strings.size() || s.st_shndx == SHN_UNDEF) continue;
        const std::string name(strings.c_str() + s.st_name);
        if (name.empty()) continue;
        out.exports.insert(name);
        std::string bytes;
        if ((name == "plugin_name" || name == "plugin_type") && value_of(s, &bytes)) {
            (name == "plugin_name" ? out.name : out.type) = std::string(bytes.c_str());
        } else if (name == "plugin_version" && s.st_size == sizeof(uint32_t) && value_of(s, &bytes)) {
            uint32_t v = 0;
            std::memcpy(&v, bytes.data(), sizeof v);  // the host's byte order: the file was built for it
            out.version = v;
        }
    }
    return out;
}

bool version_accepted(const std::string& type, uint32_t version, uint32_t slurm) {
    const uint32_t mask = type == "spank" ? 0xffff00u : 0xffffffu;
    return (version & mask) == (slurm & mask);
}

}  // namespace spiderflow::doctor
