noinst_LTLIBRARIES += libsf_plan.la
libsf_plan_la_SOURCES = \
	common/plan/plan.cpp \
	common/plan/plan.h
# Plain stage-major layout builder (owner: cost).
libsf_plan_la_SOURCES += \
	common/plan/sequential_layout.cpp \
	common/plan/sequential_layout.h
