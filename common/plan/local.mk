noinst_LTLIBRARIES += libsf_plan.la
libsf_plan_la_SOURCES = \
	common/plan/plan.cpp \
	common/plan/plan.h
