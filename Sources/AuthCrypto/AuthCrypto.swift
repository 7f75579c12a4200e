// Placeholder until the AuthCrypto module lands.
