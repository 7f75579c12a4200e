use strict;
use warnings;

# The server adapter of fastmail's JMAP-TestSuite for Postern (Tests/Clients/test_jmap_testsuite.py writes the
# JMAP_SERVER_ADAPTER_FILE that names it: {"adapter": "=Postern::JMAPTestSuiteAdapter", "base_uri": ...,
# "account_command": [...]}). Every account a test asks for, shared or pristine, is a new agent inbox (the command
# signs one up and prints its capability token), so each test starts on an empty account. The tester is configured
# from the account's JMAP session (RFC 8620 2): apiUrl, uploadUrl, downloadUrl and the mail account's id.
package Postern::JMAPTestSuiteAdapter;

use Moose;
with 'JMAP::TestSuite::ServerAdapter';

use JSON ();
use LWP::UserAgent;

has base_uri => (is => 'ro', required => 1);

# The command (an array) that signs up one agent on base_uri and prints {"address", "token"}.
has account_command => (is => 'ro', isa => 'ArrayRef[Str]', required => 1);

sub any_account { $_[0]->pristine_account }

sub pristine_account {
  my ($self) = @_;
  open my $out, '-|', @{ $self->account_command } or die "cannot run the account command: $!\n";
  my $printed = do { local $/; <$out> };
  close $out or die "the account command failed (status $?)\n";
  my $agent = JSON->new->decode($printed);

  my $ua = LWP::UserAgent->new(timeout => 30);
  my $base = $self->base_uri =~ s{/\z}{}r;
  my $res = $ua->get("$base/.well-known/jmap", Authorization => "Bearer $agent->{token}");
  die "the JMAP session of $agent->{address} answered " . $res->status_line . "\n" unless $res->is_success;
  my $session = JSON->new->decode($res->decoded_content);

  return Postern::JMAPTestSuiteAccount->new({
    server    => $self,
    accountId => $session->{primaryAccounts}{'urn:ietf:params:jmap:mail'},
    token     => $agent->{token},
    session   => $session,
  });
}

no Moose;
__PACKAGE__->meta->make_immutable;

package Postern::JMAPTestSuiteAccount;

use Moose;
with 'JMAP::TestSuite::Account';

use JMAP::TestSuite::JMAP::Tester::WithSugar;

has token   => (is => 'ro', required => 1);
has session => (is => 'ro', required => 1);

sub authenticated_tester {
  my ($self) = @_;
  my $session = $self->session;
  # The suite downloads without naming a type; Postern's downloadUrl has it as an optional query parameter (the
  # blob's own type when absent), so the template the tester fills leaves it out.
  my $download = $session->{downloadUrl} =~ s/[?&]type=\{type\}//r;
  my $tester = JMAP::TestSuite::JMAP::Tester::WithSugar->new({
    api_uri      => $session->{apiUrl},
    upload_uri   => $session->{uploadUrl},
    download_uri => $download,
    access_token => $self->token,
    # RFC 8620 5.1 makes accountId an argument of every method; the suite's calls leave it to the tester's defaults.
    default_arguments => { accountId => $self->accountId },
  });
  $tester->ua->set_default_header(Authorization => 'Bearer ' . $self->token);
  return $tester;
}

no Moose;
__PACKAGE__->meta->make_immutable;

1;
