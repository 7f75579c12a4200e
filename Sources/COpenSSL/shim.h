#ifndef POSTERN_COPENSSL_SHIM_H
#define POSTERN_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/decoder.h>

/// BIO_get_mem_data is a macro over BIO_ctrl; Swift cannot import it.
static inline long postern_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// BN_num_bytes is a macro over BN_num_bits; Swift cannot import it.
static inline int postern_BN_num_bytes(const BIGNUM *bn) { return BN_num_bytes(bn); }
/// EVP_PKEY_PUBLIC_KEY is a composite macro; Swift cannot import it.
static inline int postern_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

/* ---- Fetch (libssl): functions for macros Swift cannot import. Keep at the end of the file. ---- */
static inline long postern_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long postern_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline uint64_t postern_SSL_CTX_ignore_unexpected_eof(SSL_CTX *ctx) {
    return SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
}
/* ---- end Fetch ---- */
#endif
