// Job streams shaped after SenseTime's Helios traces (Q. Hu, P. Sun, S. Yan, Y. Wen, T. Zhang,
// "Characterization and Prediction of Deep Learning Workloads in Large-Scale GPU Datacenters",
// SC'21; data: github.com/S-Lab-System-Group/HeliosData), scaled to a federation:
//  - read_helios_log(): the public cluster_log.csv schema (header job_id, user, vc, gpu_num,
//    cpu_num, node_num, state, submit_time, start_time, end_time, duration, queue), so a site
//    with the real file replays it;
//  - generate_helios_like(): a seeded synthetic stream with the same shape, for the evaluation
//    (the figures it uses are in doc/simulate.md, next to where they come from).
// Both give LLM training jobs: a job's GPU count picks a catalog model of a size that count
// trains (8-16 GPUs: llama3-8b, 32-64: llama2-13b, 128+: llama3-70b), and its recorded run time
// becomes its work (duration_s), so every policy replays the same work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "services/fedsim/job_trace.h"

namespace spiderflow::fedsim {

struct HomeCluster {
    std::string name;
    int gpus = 0;                    // homes are drawn in proportion to size
};

struct HeliosReadOptions {
    int min_gpus = 8;                // rows asking fewer GPUs are not LLM training: skipped
    double gpu_scale = 1;            // multiply each job's GPUs (rounded to a power of two)
    int max_gpus = 0;                // cap after scaling; 0 = none
    size_t max_jobs = 0;             // first N kept rows; 0 = all
    std::vector<HomeCluster> homes;  // each row's vc is mapped to one home, stably
};

// Rows whose state is not COMPLETED, that ran 0 s, or ask fewer than min_gpus GPUs are skipped;
// submit times become seconds after the first kept row. Throws InputError naming the line and
// column of a malformed row or a missing column.
JobTrace read_helios_log(const std::string& path, const HeliosReadOptions& options);

struct HeliosGenOptions {
    int jobs = 100;
    uint64_t seed = 1;
    std::vector<HomeCluster> homes;  // the federation's clusters
    // Offered load inside the measurement window (measurement_window.h): GPU-seconds the jobs
    // ask inside it, each from its submission for its drawn run time, per GPU-second of the
    // federation. Arrivals are Poisson, modulated by a day/night cycle, at the rate that offers
    // this load there (found by bisection; below 10 jobs, the rate that offers it on average).
    double load = 0.9;
    double gpu_scale = 1;            // multiply the drawn GPU counts (powers of two kept)
    int max_gpus = 0;                // cap; 0 = half the federation's GPUs
    double duration_scale = 1;       // multiply the drawn run times
};

JobTrace generate_helios_like(const HeliosGenOptions& options);

// The model a job of `gpus` GPUs trains (see above).
std::string model_for_gpus(int gpus);

}  // namespace spiderflow::fedsim
