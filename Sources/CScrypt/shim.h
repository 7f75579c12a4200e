#ifndef POSTERN_CSCRYPT_SHIM_H
#define POSTERN_CSCRYPT_SHIM_H
#include <stdint.h>
#include <stddef.h>
#include <libscrypt.h>
#endif
