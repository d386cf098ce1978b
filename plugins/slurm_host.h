// Functions the Slurm host process (slurmctld, slurmstepd, srun, sbatch) exports from
// libslurmfull. Plugins call them without linking -lslurm: they resolve at dlopen time.
// Only these few are used: memory Slurm frees must come from Slurm's allocator.
#pragma once

extern "C" {
char* slurm_xstrdup(const char* str);
void slurm_xfree_ptr(void* ptr);
int slurm_env_array_overwrite(char*** array_ptr, const char* name, const char* value);
void slurm_unsetenvp(char** env, const char* name);
void slurm_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void slurm_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void slurm_debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
}
