noinst_LTLIBRARIES += libsf_model.la
libsf_model_la_SOURCES = \
	libspiderflow/model/catalog.cpp \
	libspiderflow/model/catalog.h \
	libspiderflow/model/catalog_data.h \
	libspiderflow/model/job_spec.cpp \
	libspiderflow/model/job_spec.h \
	libspiderflow/model/model_arch.cpp \
	libspiderflow/model/model_json.h
# The builtin catalog stays in data files; this wraps them into a .cpp at build time.
SF_CATALOG_FILES = \
	$(srcdir)/libspiderflow/model/catalog/gpus.json \
	$(srcdir)/libspiderflow/model/catalog/models.json
nodist_libsf_model_la_SOURCES = libspiderflow/model/catalog_data.cpp
BUILT_SOURCES += libspiderflow/model/catalog_data.cpp
CLEANFILES += libspiderflow/model/catalog_data.cpp
EXTRA_DIST += build-aux/embed-text.sh libspiderflow/model/catalog/gpus.json libspiderflow/model/catalog/models.json
libspiderflow/model/catalog_data.cpp: $(SF_CATALOG_FILES) $(srcdir)/build-aux/embed-text.sh
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(SHELL) $(srcdir)/build-aux/embed-text.sh $@ $(SF_CATALOG_FILES)
