use strict;
use warnings;

# The results of JMAP::Tester's HTTP calls other than a JMAP response (JMAP::Tester::Response), as fastmail's
# JMAP-TestSuite reads them, written for Postern's client test of that suite: a failure (any non-2xx answer), an
# upload's blob and a download's bytes. Each keeps the HTTP::Response it came from.
package JMAP::Tester::Result;

sub new { my ($class, $arg) = @_; return bless { %$arg }, $class }

sub http_response { $_[0]{http_response} }

sub response_payload { $_[0]{http_response} ? $_[0]{http_response}->as_string : '' }

package JMAP::Tester::Result::Failure;
our @ISA = ('JMAP::Tester::Result');

sub is_success { 0 }
sub ident { $_[0]{ident} // ($_[0]{http_response} ? $_[0]{http_response}->status_line : 'no response') }

package JMAP::Tester::Result::Upload;
our @ISA = ('JMAP::Tester::Result');

sub is_success { 1 }
sub payload { $_[0]{payload} }
sub blob_id { $_[0]{payload}{blobId} }
sub blobId  { $_[0]{payload}{blobId} }
sub type    { $_[0]{payload}{type} }
sub size    { $_[0]{payload}{size} }

package JMAP::Tester::Result::Download;
our @ISA = ('JMAP::Tester::Result');

sub is_success { 1 }

sub bytes_ref {
  my ($self) = @_;
  $self->{bytes} //= $self->{http_response}->decoded_content(charset => 'none');
  return \$self->{bytes};
}

1;
