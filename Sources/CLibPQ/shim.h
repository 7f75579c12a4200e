#ifndef POSTERN_CLIBPQ_SHIM_H
#define POSTERN_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
