// Raw parse of a site's Slurm configuration: slurm.conf (ClusterName, GresTypes, NodeName and
// PartitionName lines), gres.conf and topology.conf. Kept close to the files, with line numbers,
// so that checks can point a site admin at the exact line; slurm_reader.cpp turns it into a
// Topology. Only what placement needs is kept; other keys are accepted and ignored, as Slurm
// itself has hundreds of them.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace spiderflow::slurm {

// Expands a Slurm hostlist: "n[001-016,20]", "n[01-04],m5", "rack[1-2]-n[1-3]" (numeric ranges
// only; several bracket groups give their cross product). Zero padding follows the lower bound
// ("n[08-10]" -> n08 n09 n10). Throws InputError(source, line, field) on a malformed list or one
// expanding past kMaxHostlist names (a typo like n[1-1000000000] must not exhaust memory).
std::vector<std::string> expand_hostlist(std::string_view list, const std::string& source = "<hostlist>",
                                         int line = 0, const std::string& field = "");
constexpr std::size_t kMaxHostlist = 1u << 20;

// One GRES entry of slurm.conf's Gres= ("gpu:a100:8", "gpu:4", "gpu:h100:8(S:0-1)").
struct GresSpec {
    std::string name;   // "gpu"
    std::string type;   // "a100", empty when untyped
    long count = 1;
};

struct NodeLine {
    int line = 0;
    std::vector<std::string> names;       // expanded NodeName
    std::vector<GresSpec> gres;           // DEFAULT values already applied
    std::vector<std::string> features;    // Feature= / Features=, comma-separated
    std::map<std::string, std::string> attrs;  // every key (lower-case) -> value, defaults applied

    long gpu_count() const;               // sum over gres named "gpu"
    std::string gpu_type() const;         // first typed gpu gres, empty when untyped
};

struct PartitionLine {
    int line = 0;
    std::string name;
    std::vector<std::string> nodes;       // expanded Nodes=, empty for "ALL" (all_nodes set)
    bool all_nodes = false;
};

// A global key=value of slurm.conf as written (the last one given wins, as in Slurm).
struct Setting {
    std::string value;
    int line = 0;
};

struct SlurmConf {
    std::string path;
    std::string cluster_name;
    int cluster_name_line = 0;
    std::vector<std::string> gres_types;  // GresTypes=, lower-case
    int gres_types_line = 0;
    std::string topology_plugin;          // TopologyPlugin=, e.g. "topology/tree"
    std::vector<NodeLine> nodes;
    std::vector<PartitionLine> partitions;
    std::vector<std::string> nodesets;    // NodeSet= names (partitions may name them)
    std::vector<int> includes;            // lines of Include directives (not followed)
    // Every global key (lower-case) -> its value and line: what `spiderflow doctor` reads when no
    // Slurm library can (PluginDir, JobSubmitPlugins, JobRequeue, ...). Node and partition lines
    // are not in it.
    std::map<std::string, Setting> settings;
};

struct GresLine {
    int line = 0;
    std::vector<std::string> node_names;  // expanded NodeName=; empty = applies to every node
    std::string name;                     // Name=, lower-case
    std::string type;                     // Type=
    std::vector<std::string> files;       // expanded File= (or MultipleFiles=)
    long count = -1;                      // Count=, -1 when absent
    std::string autodetect;               // AutoDetect= on this line ("nvml", "off", ...)

    // Devices this line stands for: File= entries, else Count=, else 1.
    long devices() const;
    bool applies_to(const std::string& node) const;
};

struct GresConf {
    std::string path;
    bool present = false;
    std::string autodetect;               // global AutoDetect= (a line with no NodeName/Name)
    std::vector<GresLine> lines;
};

struct SwitchLine {
    int line = 0;
    std::string name;
    std::vector<std::string> switches;    // expanded Switches=
    std::vector<std::string> nodes;       // expanded Nodes=
    std::string link_speed;               // LinkSpeed= as written (a relative figure in Slurm)
};

struct TopologyConf {
    std::string path;
    bool present = false;
    std::vector<SwitchLine> switches;
};

struct SlurmFiles {
    SlurmConf slurm;
    GresConf gres;
    TopologyConf topology;
};

// Each parser reads the text of one file; `source` names it in errors. Throws InputError with
// the line and key of anything malformed (bad hostlist, bad count, line with no Key=Value).
SlurmConf parse_slurm_conf(const std::string& text, const std::string& source);
GresConf parse_gres_conf(const std::string& text, const std::string& source);
TopologyConf parse_topology_conf(const std::string& text, const std::string& source);

// Reads slurm.conf at `slurm_conf_path` and the gres.conf / topology.conf beside it when they
// exist (absent files leave present=false). Throws InputError when slurm.conf is unreadable.
SlurmFiles load_slurm_files(const std::string& slurm_conf_path);

// Splits one logical config line into Key=Value pairs (keys as written; values unquoted).
// Exposed for tests. Throws InputError on a word without '='.
struct KeyValue {
    std::string key;
    std::string value;
};
std::vector<KeyValue> split_config_line(std::string_view line, const std::string& source, int line_no);

}  // namespace spiderflow::slurm
