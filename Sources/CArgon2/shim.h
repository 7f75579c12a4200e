#ifndef POSTERN_CARGON2_SHIM_H
#define POSTERN_CARGON2_SHIM_H
#include <argon2.h>
#endif
