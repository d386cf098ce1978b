noinst_LTLIBRARIES += libsf_util.la
libsf_util_la_SOURCES = \
	libspiderflow/util/errors.cpp \
	libspiderflow/util/cli_options.cpp \
	libspiderflow/util/cli_options.h \
	libspiderflow/util/did_you_mean.cpp \
	libspiderflow/util/did_you_mean.h \
	libspiderflow/util/errors.h \
	libspiderflow/util/file_stamp.cpp \
	libspiderflow/util/file_stamp.h \
	libspiderflow/util/human_format.cpp \
	libspiderflow/util/human_format.h \
	libspiderflow/util/json_read.cpp \
	libspiderflow/util/json_read.h \
	libspiderflow/util/key_value_conf.cpp \
	libspiderflow/util/key_value_conf.h \
	libspiderflow/util/parse_number.cpp \
	libspiderflow/util/parse_number.h \
	libspiderflow/util/secret_file.cpp \
	libspiderflow/util/secret_file.h \
	libspiderflow/util/split_list.cpp \
	libspiderflow/util/split_list.h \
	libspiderflow/util/text_file.cpp \
	libspiderflow/util/text_file.h \
	libspiderflow/util/units.h
