# The plan's text as it travels inside a job (zlib): small on purpose, since the SPANK plugin
# that every sbatch loads links it.
noinst_LTLIBRARIES += libsf_plan_transport.la
libsf_plan_transport_la_SOURCES = \
	libspiderflow/plan/plan_transport.cpp \
	libspiderflow/plan/plan_transport.h
libsf_plan_transport_la_LIBADD = $(ZLIB_LIBS)

noinst_LTLIBRARIES += libsf_plan.la
libsf_plan_la_SOURCES = \
	libspiderflow/plan/plan.cpp \
	libspiderflow/plan/plan.h \
	libspiderflow/plan/plan_json.cpp \
	libspiderflow/plan/plan_json.h \
	libspiderflow/plan/plan_parts.cpp \
	libspiderflow/plan/plan_parts.h \
	libspiderflow/plan/plan_traffic.cpp \
	libspiderflow/plan/plan_routes.cpp \
	libspiderflow/plan/plan_routes.h \
	libspiderflow/plan/plan_traffic.h \
	libspiderflow/plan/plan_text.cpp \
	libspiderflow/plan/plan_text.h \
	libspiderflow/plan/plan_svg.cpp \
	libspiderflow/plan/plan_svg.h
# Launch writer and NCCL environment.
libsf_plan_la_SOURCES += \
	libspiderflow/plan/nccl_env.cpp \
	libspiderflow/plan/nccl_env.h \
	libspiderflow/plan/command_flags.cpp \
	libspiderflow/plan/command_flags.h \
	libspiderflow/plan/launch_diloco.cpp \
	libspiderflow/plan/launch_diloco.h \
	libspiderflow/plan/launch_writer.cpp \
	libspiderflow/plan/launch_writer.h \
	libspiderflow/plan/layer_split.cpp \
	libspiderflow/plan/layer_split.h

# Plain stage-major layout builder.
libsf_plan_la_SOURCES += \
	libspiderflow/plan/sequential_layout.cpp \
	libspiderflow/plan/sequential_layout.h
