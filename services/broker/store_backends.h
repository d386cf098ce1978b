// The store backends behind open_store() (broker_store.h); only open_store calls these.
#pragma once

#include <memory>
#include <string>

#include "services/broker/broker_store.h"

namespace spiderflow::broker {

std::unique_ptr<BrokerStore> make_sqlite_store(const std::string& path, const std::string& owner);
#ifdef SF_HAVE_MARIADB
std::unique_ptr<BrokerStore> make_mariadb_store(const MariadbLocation& where, const std::string& password);
#endif

}  // namespace spiderflow::broker
