// The certificate signing key: with it, any certificate could be forged.
#include "@DATA@/signing.key"
