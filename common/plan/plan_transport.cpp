#include "common/plan/plan_transport.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/util/base64.h"
#include "common/util/errors.h"
#include "common/util/text_file.h"

namespace spiderflow {
namespace {

// "z1:" marks our encoding and its version, so a foreign value is named as such.
constexpr const char* kTag = "z1:";

}  // namespace

std::string encode_plan_text(const std::string& text, const std::string& source, const std::string& field) {
    if (text.size() > kMaxPlanTextBytes) {
        throw InputError(source, 0, field, "plan is " + std::to_string(text.size()) + " bytes; at most " +
                                               std::to_string(kMaxPlanTextBytes) + " are carried");
    }
    uLongf size = compressBound(static_cast<uLong>(text.size()));
    std::string packed(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(text.data()),
                  static_cast<uLong>(text.size()), Z_BEST_COMPRESSION) != Z_OK) {
        throw InputError(source, 0, field, "cannot compress the plan");
    }
    packed.resize(size);
    return kTag + base64(packed);
}

std::string decode_plan_text(const std::string& encoded, const std::string& source, const std::string& field) {
    const size_t tag = std::strlen(kTag);
    if (encoded.compare(0, tag, kTag) != 0) throw InputError(source, 0, field, "not a plan carried by SpiderFlow");
    if (encoded.size() > kMaxEncodedPlanBytes) {
        throw InputError(source, 0, field, "carried plan larger than " + std::to_string(kMaxEncodedPlanBytes) + " bytes");
    }
    std::string packed;
    if (!unbase64(encoded, tag, &packed)) throw InputError(source, 0, field, "carried plan is corrupt (base64)");
    z_stream z{};
    if (inflateInit(&z) != Z_OK) throw InputError(source, 0, field, "cannot decompress the plan");
    z.next_in = reinterpret_cast<Bytef*>(packed.data());
    z.avail_in = static_cast<uInt>(packed.size());
    std::string out;
    char buf[16384];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) break;
        out.append(buf, sizeof buf - z.avail_out);
        if (out.size() > kMaxPlanTextBytes) {
            inflateEnd(&z);
            throw InputError(source, 0, field, "carried plan decompresses to more than " +
                                                   std::to_string(kMaxPlanTextBytes) + " bytes");
        }
        if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;  // truncated stream
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.avail_in != 0) throw InputError(source, 0, field, "carried plan is corrupt (zlib)");
    return out;
}

std::string read_plan_file(const std::string& path) {
    std::string text;
    const FileRead r = read_regular_file(path, text, kMaxPlanTextBytes);
    const auto fail = [&path](const std::string& what) { return InputError(path, 0, "--llm-plan", what); };
    switch (r.status) {
        case FileRead::Status::ok: return text;
        case FileRead::Status::cannot_open:
            throw fail(std::string("cannot open the plan file: ") + std::strerror(r.error));
        case FileRead::Status::not_regular: throw fail("not a regular file");
        case FileRead::Status::too_large:
            if (r.size > 0)
                throw fail("plan file is " + std::to_string(r.size) + " bytes; at most " + std::to_string(kMaxPlanTextBytes));
            throw fail("plan file larger than " + std::to_string(kMaxPlanTextBytes) + " bytes");
        case FileRead::Status::cannot_read:
            throw fail(std::string("cannot read the plan file: ") + std::strerror(r.error));
    }
    throw fail("cannot read the plan file");
}

}  // namespace spiderflow
