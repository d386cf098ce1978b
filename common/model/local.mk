noinst_LTLIBRARIES += libsf_model.la
libsf_model_la_SOURCES = \
	common/model/catalog.cpp \
	common/model/catalog.h \
	common/model/catalog_data.h \
	common/model/job_spec.cpp \
	common/model/job_spec.h \
	common/model/model_arch.cpp \
	common/model/model_json.h
# The builtin catalog stays in data files; this wraps them into a .cpp at build time.
SF_CATALOG_FILES = \
	$(srcdir)/common/model/catalog/gpus.json \
	$(srcdir)/common/model/catalog/models.json
nodist_libsf_model_la_SOURCES = common/model/catalog_data.cpp
BUILT_SOURCES += common/model/catalog_data.cpp
CLEANFILES += common/model/catalog_data.cpp
EXTRA_DIST += common/model/embed-text.sh common/model/catalog/gpus.json common/model/catalog/models.json
common/model/catalog_data.cpp: $(SF_CATALOG_FILES) $(srcdir)/common/model/embed-text.sh
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(SHELL) $(srcdir)/common/model/embed-text.sh $@ $(SF_CATALOG_FILES)
