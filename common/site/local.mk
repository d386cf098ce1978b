# Site state: the topology plus what is free on it (layer 2; uses topology and util, with util's
# strict JSON reading, only).
noinst_LTLIBRARIES += libsf_site.la
libsf_site_la_SOURCES = \
	libspiderflow/site/site_types.h \
	libspiderflow/site/site_types.cpp \
	libspiderflow/site/site_delta.h \
	libspiderflow/site/site_delta.cpp \
	libspiderflow/site/site_state.h \
	libspiderflow/site/site_state.cpp \
	libspiderflow/site/site_view.cpp \
	libspiderflow/site/site_json.h \
	libspiderflow/site/site_json.cpp \
	libspiderflow/site/site_json_fields.h \
	libspiderflow/site/site_json_fields.cpp \
	libspiderflow/site/topology_hash.h \
	libspiderflow/site/topology_hash.cpp \
	libspiderflow/site/node_list.h \
	libspiderflow/site/node_list.cpp \
	libspiderflow/site/node_pick.h \
	libspiderflow/site/node_pick.cpp
