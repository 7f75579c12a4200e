/// A message signed with dkimpy 1.1.8: one RSA-SHA256 signature (relaxed/relaxed, selector `rsa1`) and one Ed25519-SHA256
/// signature (simple/simple, selector `ed1`), both for `example.com`, over a message with a folded subject, inner and
/// trailing whitespace and trailing blank lines. dkimpy itself verified both before the fixture was kept.
///
/// Made with: `dknewkey rsa1`, `dknewkey --ktype ed25519 ed1`, then `dkim.sign(message, b"rsa1", b"example.com", key,
/// canonicalize=(b"relaxed", b"relaxed"))` and `dkim.sign(..., b"ed1", ..., canonicalize=(b"simple", b"simple"),
/// signature_algorithm=b"ed25519-sha256", include_headers=[b"from", b"to", b"subject"])`, prepended in that order.
enum DKIMFixture {
    /// The signed message, base64 (exact bytes, CRLF line ends).
    static let message: [UInt8] = Array(Data(base64Encoded: [
        "REtJTS1TaWduYXR1cmU6IHY9MTsgYT1yc2Etc2hhMjU2OyBjPXJlbGF4ZWQvcmVsYXhlZDsgZD1leGFtcGxlLmNvbTsNCiBpPUBl",
        "eGFtcGxlLmNvbTsgcT1kbnMvdHh0OyBzPXJzYTE7IHQ9MTc5NTYwMjE5OTsgaD1mcm9tIDogdG8gOiBzdWJqZWN0DQogOiBkYXRl",
        "IDogbWVzc2FnZS1pZDsgYmg9UUJjV2oyNjMvSzIxdEpybk5RSGxsZUxxL0ZCTzd2RUVBTVdDWDF6a3NCTT07DQogYj1RTmE1dVhM",
        "SHQ4U1JKWnBxT2VpQWhLMHErRGVkRy8vczY3SjdYYmRVdWFwVklkQ3RZNHUrdHNaVGp1cndsY0xVbnlEcDkNCiBVYitHYnNPRkx5",
        "aU9URkJGbVByaGhXanRhaVdjV2hYaHdBdVc3Y1hLcnR2b3EvVXo1T0p1ZFJWUDZlcE90STdrYk9Jak9jUA0KIHRtbnBteEdaQlRH",
        "RmdDS1M5RjJ1blU4enJ0N05NY3FYTlBiRmt5T1AvZzA5SE5vMzBTQk5SS0lJRTl3NmZlNkkzbUdxU3VFDQogWUFLQmZSRlN4akJS",
        "Ry8xbUFreGZsekhhOXJlQ1AzQXkxMDNsVyttdUwyOEg0M2dsS0gyOC9VWUxrR3pLMFlhWTNlRlc4clQNCiBxL09CYk9zN05iSE45",
        "Ry9ET2t2M0dtRjd1ZVh2QmU5dWoycHJkZjdDeEdiN1hHUlBtK3B6bnZrUGsxL3c9PQ0KREtJTS1TaWduYXR1cmU6IHY9MTsgYT1l",
        "ZDI1NTE5LXNoYTI1NjsgYz1zaW1wbGUvc2ltcGxlOyBkPWV4YW1wbGUuY29tOw0KIGk9QGV4YW1wbGUuY29tOyBxPWRucy90eHQ7",
        "IHM9ZWQxOyB0PTE3OTU2MDIxOTk7IGg9ZnJvbSA6IHRvIDogc3ViamVjdDsNCiBiaD1oWVNaMHhyMVZ4Ym8xNmZvNDhoc1V0TlM0",
        "dFh2MXp5WlpHRDJERjN6MG9BPTsNCiBiPWZISnFuR3FVMkRTQkljc21ndnpOMDJGNm1CSCtxQjM3b1lrUERZMXkzNmdZWnZEdGlD",
        "UGxab1JrME9aVmNSODN1bTRJdg0KIGJwL0xPcElwVVlkbDFwK0JRPT0NCkZyb206IEFsaWNlIEV4YW1wbGUgPGFsaWNlQGV4YW1w",
        "bGUuY29tPg0KVG86IGJvYkBleGFtcGxlLm9yZw0KU3ViamVjdDogIEEgICBmb2xkZWQNCglzdWJqZWN0IGxpbmUgIA0KRGF0ZTog",
        "V2VkLCAyNSBOb3YgMjAyNiAxMDowMDowMCArMDAwMA0KTWVzc2FnZS1JRDogPGZpeHR1cmUtMUBleGFtcGxlLmNvbT4NCg0KSGVs",
        "bG8gQm9iLCAgDQogIHRoaXMgbGluZSBoYXMgICBpbm5lciAgIHNwYWNlcy4JDQoNCkJ5ZS4NCg0KDQo="
    ].joined())!)

    /// `rsa1._domainkey.example.com` TXT.
    static let rsaKeyRecord = "v=DKIM1; k=rsa; h=sha256; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhAuOKShBYS62zF7+LPIBHsNu3+9giHK/izUqFRKi3k/673sinsTwf+qa4JrUBMZ5kTaX2sv5wWip2l0pVAWjctN4BzdGVFvWSUCKpGOfCawB1YUPXxQeLQAmEVO/+aDHTt38rTzwSGcGYkujIENpX5e/Ya+jdEun9oB5rVbiYTtNrTFruvWB61VK460TCzeskf4fdL8URffk+QC+4NTyVQoDDKiqdir+3eqTfVauVDEfd9K+POiJjxWIMLr8E4q/Py77ynACWARMU00EPFuemJ23/hXgDOu2f69AtgnjwA0gpq95xe3ORxmkuxTtYhQjdffQGtYFUrsmzn08+UCVvwIDAQAB"
    /// `ed1._domainkey.example.com` TXT.
    static let ed25519KeyRecord = "v=DKIM1; k=ed25519; p=mXcC9Ybhn5iI4JhsTniIYjXIBzPofoMicapIsu1Z6j4="
}

import Foundation
