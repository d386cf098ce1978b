noinst_LTLIBRARIES += libsf_planner.la
libsf_planner_la_SOURCES = \
	libspiderflow/planner/planner.h \
	libspiderflow/planner/plan_request.h \
	libspiderflow/planner/request_options.h \
	libspiderflow/planner/plan_job.h \
	libspiderflow/planner/deadline_planning.cpp \
	libspiderflow/planner/deadline_planning.h \
	libspiderflow/planner/plan_job.cpp \
	libspiderflow/planner/stage_fill.h \
	libspiderflow/planner/stage_fill.cpp \
	libspiderflow/planner/virtual_stages.h \
	libspiderflow/planner/virtual_stages.cpp \
	libspiderflow/planner/plan_compare.cpp \
	libspiderflow/planner/plan_compare.h \
	libspiderflow/planner/sync_compare.cpp \
	libspiderflow/planner/sync_compare.h \
	libspiderflow/planner/request_builder.h \
	libspiderflow/planner/request_builder.cpp \
	libspiderflow/planner/policy_factory.cpp \
	libspiderflow/planner/shapes.h \
	libspiderflow/planner/shapes.cpp \
	libspiderflow/planner/tpa/inventory.h \
	libspiderflow/planner/tpa/inventory.cpp \
	libspiderflow/planner/tpa/level1.h \
	libspiderflow/planner/tpa/level1.cpp \
	libspiderflow/planner/tpa/level2.h \
	libspiderflow/planner/tpa/level2.cpp \
	libspiderflow/planner/spinsearch/skeleton.h \
	libspiderflow/planner/spinsearch/skeleton.cpp \
	libspiderflow/planner/spinsearch/fan_out.h \
	libspiderflow/planner/spinsearch/fan_out.cpp \
	libspiderflow/planner/spinsearch/spinsearch.h \
	libspiderflow/planner/spinsearch/spinsearch.cpp
# Engineer "baselines": append baseline sources below (libspiderflow/planner/baselines/<name>/...).
libsf_planner_la_SOURCES += \
	libspiderflow/planner/baselines/common/evaluator.h \
	libspiderflow/planner/baselines/common/evaluator.cpp \
	libspiderflow/planner/baselines/common/portable_random.h \
	libspiderflow/planner/baselines/first_fit/first_fit.h \
	libspiderflow/planner/baselines/first_fit/first_fit.cpp \
	libspiderflow/planner/baselines/greedy/greedy.h \
	libspiderflow/planner/baselines/greedy/greedy.cpp \
	libspiderflow/planner/baselines/published/published.h \
	libspiderflow/planner/baselines/published/published.cpp \
	libspiderflow/planner/baselines/genetic/genetic.h \
	libspiderflow/planner/baselines/genetic/genetic.cpp \
	libspiderflow/planner/baselines/exhaustive/exhaustive.h \
	libspiderflow/planner/baselines/exhaustive/exhaustive.cpp \
	libspiderflow/planner/baselines/global_ilp/global_ilp.h \
	libspiderflow/planner/baselines/global_ilp/global_ilp.cpp \
	libspiderflow/planner/baselines/global_ilp/shape_costs.h \
	libspiderflow/planner/baselines/global_ilp/shape_costs.cpp \
	libspiderflow/planner/baselines/global_ilp/start_layout.h \
	libspiderflow/planner/baselines/global_ilp/start_layout.cpp \
	libspiderflow/planner/baselines/global_ilp/shape_milp.h \
	libspiderflow/planner/baselines/global_ilp/shape_milp.cpp \
	libspiderflow/planner/baselines/global_ilp/shape_bound.h \
	libspiderflow/planner/baselines/global_ilp/shape_bound.cpp \
	libspiderflow/planner/baselines/global_ilp/shape_search.h \
	libspiderflow/planner/baselines/global_ilp/shape_search.cpp
