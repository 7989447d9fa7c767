/**
 * Identity-provider certificates for SAML tests: two self-signed P-256 certificates (valid until 2126), made with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 36500 -subj /CN=idp.example.test`.
 * Node cannot make certificates, so they are fixtures.
 */
export const IDP_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBjTCCATOgAwIBAgIUFa4L+KxnHO2u8bgHjgjTiLg2bc8wCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQaWRwLmV4YW1wbGUudGVzdDAgFw0yNjExMjIwNDMxMjdaGA8y
MTI2MTAyOTA0MzEyN1owGzEZMBcGA1UEAwwQaWRwLmV4YW1wbGUudGVzdDBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABB8KLwOaIGaqBxkQy/iS3VRSjzqLaQj//tXV
2Kb2JETqzZTP7KfehF49uEhkKU9TmS0l48/Zd5oMngtnRrebcJGjUzBRMB0GA1Ud
DgQWBBR50fZNtzF0pMuTasgg7yDMlL9IuTAfBgNVHSMEGDAWgBR50fZNtzF0pMuT
asgg7yDMlL9IuTAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIDdj
7HowVR5dxPjMoZEM3WoEgvzr9tUpd01lH0pgbWbyAiEA8JFmLeHp5OqTx6kqdxer
E+OIN49k0PUyIt6v954G3RI=
-----END CERTIFICATE-----
`;

export const OTHER_IDP_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBjjCCATWgAwIBAgIUbAa7x8Ym02yf0+P4cNeVqDiiJxgwCgYIKoZIzj0EAwIw
HDEaMBgGA1UEAwwRaWRwMi5leGFtcGxlLnRlc3QwIBcNMjYxMTIyMDQzMTI3WhgP
MjEyNjEwMjkwNDMxMjdaMBwxGjAYBgNVBAMMEWlkcDIuZXhhbXBsZS50ZXN0MFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE+BBZISbXhtF5brxeM8VVVYGFAqArxuaQ
91QvOL4KNOGipMDjVYHIUZfKhz+gPC0n0k01fOc5E4t3d4sAT1WQ16NTMFEwHQYD
VR0OBBYEFDiNzENitbUyKObak4ESX80zqPtDMB8GA1UdIwQYMBaAFDiNzENitbUy
KObak4ESX80zqPtDMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIh
AKt9YB7Zft1JkH0cx9emcb8t4CJlCTtD3qeEkw6+BTABAh9S5kjtf/THW90Dyy9z
ssOOGtBqXDubQEJLl6tikQ0k
-----END CERTIFICATE-----
`;

/** The base64 body of a PEM certificate, without its header, footer or line breaks (as SAML metadata carries it). */
export function bareBase64(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}
