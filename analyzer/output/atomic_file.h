#pragma once

// The atomic writer moved to analyzer/io/atomic_write.h, shared by every file graphsafe writes
// (--output, --write-baseline); this header stays for the code that includes it.
#include "analyzer/io/atomic_write.h"
