# The launch contract (launch_contract.h: every SPIDERFLOW_* variable, named once, header only)
# and what reads and writes it, above the core's plan and NCCL settings.

# The contract's communication variables: link facts from the job's environment, each rank's
# NCCL variables and timeouts, per-communicator traffic classes. Small, for the SPANK plugin's
# step side and job_submit's traffic classes (services/slurmjob), which start no launch.
noinst_LTLIBRARIES += libsf_launch_env.la
libsf_launch_env_la_SOURCES = \
	services/launch/launch_contract.h \
	services/launch/launch_env.cpp \
	services/launch/launch_env.h

# The launch writer: the srun steps that start a planned job (Megatron-LM, torchrun, torchtitan
# with torchft's DiLoCo), for `spiderflow launch`.
noinst_LTLIBRARIES += libsf_launch.la
libsf_launch_la_SOURCES = \
	services/launch/command_flags.cpp \
	services/launch/command_flags.h \
	services/launch/launch_diloco.cpp \
	services/launch/launch_diloco.h \
	services/launch/launch_writer.cpp \
	services/launch/launch_writer.h
