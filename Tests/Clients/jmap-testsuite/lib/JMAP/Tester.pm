use strict;
use warnings;

# JMAP::Tester as fastmail's JMAP-TestSuite uses it (Debian has no package of it), written for Postern's client test
# of that suite: a JMAP client over HTTP (LWP) with JSON::Typist types on every answer. Only what the suite calls:
#
#   request(\@calls or \%request)  a JMAP request; a call without a call id gets one; default_arguments fill each
#                                  call's arguments (an argument of \undef is dropped); `using` is default_using's
#                                  unless given. Returns a JMAP::Tester::Response, or a JMAP::Tester::Result::Failure
#                                  for any answer but 2xx.
#   upload({accountId, type, blob => \$bytes})        POST to upload_uri ({accountId} filled in)
#   download({blobId, accountId, name, type})         GET of download_uri with its {variables} filled in
#   ua->lwp, ua->set_default_header, _maybe_auth_header, api_uri, upload_uri, download_uri
#
# No futures, no WebSocket, no session-driven configuration: the server adapter sets the URIs and the bearer.
package JMAP::Tester;

use Moo;

use Carp ();
use HTTP::Request;
use JSON ();
use JSON::Typist;
use JMAP::Tester::Abort;
use JMAP::Tester::Response;
use JMAP::Tester::Result;
use URI::Escape qw(uri_escape_utf8);

has api_uri      => (is => 'rw', predicate => 'has_api_uri');
has upload_uri   => (is => 'rw');
has download_uri => (is => 'rw');
has authentication_uri => (is => 'rw');

has default_using => (is => 'rw', predicate => '_has_default_using');
has default_arguments => (is => 'rw', default => sub { {} });

# The bearer token sent with every request (the adapter sets it).
has access_token => (is => 'rw');

has ua => (is => 'ro', lazy => 1, default => sub { JMAP::Tester::UA->new });

has json_codec => (
  is => 'ro',
  default => sub { JSON->new->utf8->canonical->convert_blessed->allow_nonref },
);

sub json_encode { $_[0]->json_codec->encode($_[1]) }
sub json_decode { $_[0]->json_codec->decode($_[1]) }
sub apply_json_types { JSON::Typist->new->apply_types($_[1]) }
sub strip_json_types { JSON::Typist->new->strip_types($_[1]) }

sub _maybe_auth_header {
  my ($self) = @_;
  return $self->access_token ? (Authorization => 'Bearer ' . $self->access_token) : ();
}

my $next_call_id = 'a';

sub request {
  my ($self, $input) = @_;
  Carp::confess("can't perform request: no api_uri configured") unless $self->has_api_uri;

  my $request = ref $input eq 'ARRAY' ? { methodCalls => $input } : { %$input };
  my %taken = map {; defined $_->[2] ? ($_->[2] => 1) : () } @{ $request->{methodCalls} };
  my @calls;
  for my $call (@{ $request->{methodCalls} }) {
    my ($name, $arguments, $cid) = @$call;
    unless (defined $cid) {
      do { $cid = $next_call_id++ } while $taken{$cid};
      $taken{$cid} = 1;
    }
    my %merged = (%{ $self->default_arguments }, %{ $arguments // {} });
    for my $key (keys %merged) {
      delete $merged{$key} if ref $merged{$key} eq 'SCALAR' && !defined ${ $merged{$key} };
    }
    push @calls, [ $name, \%merged, $cid ];
  }
  $request->{methodCalls} = \@calls;
  $request->{using} = $self->default_using if $self->_has_default_using && !exists $request->{using};

  my $post = HTTP::Request->new(
    POST => $self->api_uri,
    [ 'Content-Type' => 'application/json', $self->_maybe_auth_header ],
    $self->json_encode($request),
  );
  my $res = $self->ua->request($self, $post);
  return JMAP::Tester::Result::Failure->new({ http_response => $res }) unless $res->is_success;

  my $data = $self->apply_json_types($self->json_decode($res->decoded_content(charset => 'none')));
  my ($items, $wrapper) = ref $data eq 'HASH' ? ($data->{methodResponses}, $data) : ($data, {});
  die JMAP::Tester::Abort->new("illegal response to JMAP request") unless ref $items eq "ARRAY";
  return JMAP::Tester::Response->new({ items => $items, http_response => $res, wrapper_properties => $wrapper });
}

sub upload {
  my ($self, $arg) = @_;
  my $uri = $self->upload_uri or Carp::confess("can't upload without upload_uri");
  for my $param (qw(accountId type blob)) {
    Carp::confess("missing required parameter $param") unless defined $arg->{$param};
  }
  $uri =~ s/\{accountId\}/$arg->{accountId}/g;

  my $post = HTTP::Request->new(
    POST => $uri,
    [ 'Content-Type' => $arg->{type}, $self->_maybe_auth_header ],
    ${ $arg->{blob} },
  );
  my $res = $self->ua->request($self, $post);
  return JMAP::Tester::Result::Failure->new({ http_response => $res }) unless $res->is_success;
  return JMAP::Tester::Result::Upload->new({
    http_response => $res,
    payload       => $self->apply_json_types($self->json_decode($res->decoded_content(charset => 'none'))),
  });
}

# The download URI for $arg: each {variable} of download_uri filled from $arg, name defaulting to "download".
sub download_uri_for {
  my ($self, $arg) = @_;
  my $uri = $self->download_uri or Carp::confess("can't compute download URI without configured download_uri");
  my %value = (name => 'download', %$arg);
  for my $param (qw(blobId accountId name type)) {
    next unless $uri =~ /\{$param\}/;
    Carp::confess("missing required template parameter $param") unless defined $value{$param};
    my $text = uri_escape_utf8("$value{$param}");
    $uri =~ s/\{$param\}/$text/g;
  }
  return $uri;
}

sub download {
  my ($self, $uri_arg, $arg) = @_;
  my $get = HTTP::Request->new(
    GET => $self->download_uri_for($uri_arg),
    [ $self->_maybe_auth_header, ($arg && $arg->{accept} ? (Accept => $arg->{accept}) : ()) ],
  );
  my $res = $self->ua->request($self, $get);
  return JMAP::Tester::Result::Failure->new({ http_response => $res }) unless $res->is_success;
  return JMAP::Tester::Result::Download->new({ http_response => $res });
}

# The HTTP side: one LWP::UserAgent whose default headers go with every request, the tests' own GETs too.
package JMAP::Tester::UA;

use LWP::UserAgent;

sub new { my ($class) = @_; return bless { lwp => LWP::UserAgent->new(keep_alive => 4, timeout => 30) }, $class }

sub lwp { $_[0]{lwp} }
sub set_default_header { $_[0]{lwp}->default_header($_[1] => $_[2]) }
sub get_default_header { $_[0]{lwp}->default_header($_[1]) }
sub request { my ($self, $tester, $request) = @_; return $self->{lwp}->request($request) }

1;
