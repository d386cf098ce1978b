noinst_LTLIBRARIES += libsf_planner.la
libsf_planner_la_SOURCES = \
	common/planner/planner.h \
	common/planner/plan_request.h \
	common/planner/request_options.h \
	common/planner/plan_job.h \
	common/planner/deadline_planning.cpp \
	common/planner/deadline_planning.h \
	common/planner/plan_job.cpp \
	common/planner/stage_fill.h \
	common/planner/stage_fill.cpp \
	common/planner/virtual_stages.h \
	common/planner/virtual_stages.cpp \
	common/planner/plan_compare.cpp \
	common/planner/plan_compare.h \
	common/planner/sync_compare.cpp \
	common/planner/sync_compare.h \
	common/planner/layout_compare.cpp \
	common/planner/layout_compare.h \
	common/planner/request_builder.h \
	common/planner/request_builder.cpp \
	common/planner/policy_factory.cpp \
	common/planner/shapes.h \
	common/planner/shapes.cpp \
	common/planner/tpa/inventory.h \
	common/planner/tpa/inventory.cpp \
	common/planner/tpa/level1.h \
	common/planner/tpa/level1.cpp \
	common/planner/tpa/level2.h \
	common/planner/tpa/level2.cpp \
	common/planner/spinsearch/skeleton.h \
	common/planner/spinsearch/skeleton.cpp \
	common/planner/spinsearch/fan_out.h \
	common/planner/spinsearch/fan_out.cpp \
	common/planner/spinsearch/spinsearch.h \
	common/planner/spinsearch/spinsearch.cpp
# The baselines, one folder per competitor (common/planner/baselines/<name>/), over one evaluator.
libsf_planner_la_SOURCES += \
	common/planner/baselines/common/evaluator.h \
	common/planner/baselines/common/evaluator.cpp \
	common/planner/baselines/common/portable_random.h \
	common/planner/baselines/first_fit/first_fit.h \
	common/planner/baselines/first_fit/first_fit.cpp \
	common/planner/baselines/greedy/greedy.h \
	common/planner/baselines/greedy/greedy.cpp \
	common/planner/baselines/published/published.h \
	common/planner/baselines/published/published.cpp \
	common/planner/baselines/genetic/genetic.h \
	common/planner/baselines/genetic/genetic.cpp \
	common/planner/baselines/exhaustive/exhaustive.h \
	common/planner/baselines/exhaustive/exhaustive.cpp \
	common/planner/baselines/global_ilp/global_ilp.h \
	common/planner/baselines/global_ilp/global_ilp.cpp \
	common/planner/baselines/global_ilp/shape_costs.h \
	common/planner/baselines/global_ilp/shape_costs.cpp \
	common/planner/baselines/global_ilp/start_layout.h \
	common/planner/baselines/global_ilp/start_layout.cpp \
	common/planner/baselines/global_ilp/shape_milp.h \
	common/planner/baselines/global_ilp/shape_milp.cpp \
	common/planner/baselines/global_ilp/shape_bound.h \
	common/planner/baselines/global_ilp/shape_bound.cpp \
	common/planner/baselines/global_ilp/shape_search.h \
	common/planner/baselines/global_ilp/shape_search.cpp
