# Site state: the topology plus what is free on it (layer 2; uses topology and util, with util's
# strict JSON reading, only).
noinst_LTLIBRARIES += libsf_site.la
libsf_site_la_SOURCES = \
	common/site/site_types.h \
	common/site/site_types.cpp \
	common/site/site_delta.h \
	common/site/site_delta.cpp \
	common/site/site_state.h \
	common/site/site_state.cpp \
	common/site/site_view.cpp \
	common/site/site_json.h \
	common/site/site_json.cpp \
	common/site/site_json_fields.h \
	common/site/site_json_fields.cpp \
	common/site/topology_hash.h \
	common/site/topology_hash.cpp \
	common/site/node_list.h \
	common/site/node_list.cpp \
	common/site/node_pick.h \
	common/site/node_pick.cpp \
	common/site/site_diff.h \
	common/site/site_diff.cpp
