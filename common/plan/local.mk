# The plan's text as it travels inside a job (zlib): small on purpose, since the SPANK plugin
# that every sbatch loads links it.
noinst_LTLIBRARIES += libsf_plan_transport.la
libsf_plan_transport_la_SOURCES = \
	common/plan/plan_transport.cpp \
	common/plan/plan_transport.h
libsf_plan_transport_la_LIBADD = $(ZLIB_LIBS)

noinst_LTLIBRARIES += libsf_plan.la
libsf_plan_la_SOURCES = \
	common/plan/plan.cpp \
	common/plan/plan.h \
	common/plan/plan_json.cpp \
	common/plan/plan_json.h \
	common/plan/plan_parts.cpp \
	common/plan/plan_parts.h \
	common/plan/plan_traffic.cpp \
	common/plan/plan_routes.cpp \
	common/plan/plan_routes.h \
	common/plan/plan_traffic.h \
	common/plan/plan_text.cpp \
	common/plan/plan_text.h \
	common/plan/plan_svg.cpp \
	common/plan/plan_svg.h
# NCCL environment and the layer split.
libsf_plan_la_SOURCES += \
	common/plan/nccl_env.cpp \
	common/plan/nccl_env.h \
	common/plan/layer_split.cpp \
	common/plan/layer_split.h

# Plain stage-major layout builder.
libsf_plan_la_SOURCES += \
	common/plan/sequential_layout.cpp \
	common/plan/sequential_layout.h

# A layout a user writes by hand (doc/layout-file.md), built into a plan.
libsf_plan_la_SOURCES += \
	common/plan/layout_file.cpp \
	common/plan/layout_file.h
