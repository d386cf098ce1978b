noinst_LTLIBRARIES += libsf_util.la
libsf_util_la_SOURCES = \
	common/util/errors.cpp \
	common/util/cli_options.cpp \
	common/util/cli_options.h \
	common/util/base64.cpp \
	common/util/base64.h \
	common/util/did_you_mean.cpp \
	common/util/did_you_mean.h \
	common/util/errors.h \
	common/util/file_lock.cpp \
	common/util/file_lock.h \
	common/util/file_stamp.cpp \
	common/util/file_stamp.h \
	common/util/human_format.cpp \
	common/util/human_format.h \
	common/util/json_read.cpp \
	common/util/json_read.h \
	common/util/markup_text.cpp \
	common/util/markup_text.h \
	common/util/metrics_text.cpp \
	common/util/metrics_text.h \
	common/util/key_value_conf.cpp \
	common/util/key_value_conf.h \
	common/util/name_table.h \
	common/util/parse_number.cpp \
	common/util/parse_number.h \
	common/util/secret_file.cpp \
	common/util/secret_file.h \
	common/util/split_list.cpp \
	common/util/split_list.h \
	common/util/stamped_file.h \
	common/util/text_file.cpp \
	common/util/text_file.h \
	common/util/units.h \
	common/util/utf8_prefix.cpp \
	common/util/utf8_prefix.h
