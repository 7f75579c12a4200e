use strict;
use warnings;

# JMAP::Tester::Abort as fastmail's JMAP-TestSuite uses it (Debian has no package of it), written for Postern's client
# test of that suite: the exception a tester throws when a response is not what a test could go on with. Under
# Test::Abortable it becomes a failed test with its diagnostics; anywhere else it dies with its message.
package JMAP::Tester::Abort;

use Sub::Exporter -setup => {
  exports => { abort => sub { my ($class) = @_; return sub { die $class->new(@_) } } },
};

use overload '""' => sub { $_[0]->message . "\n" . join('', @{ $_[0]->diagnostics // [] }) }, fallback => 1;

sub new {
  my ($class, @args) = @_;
  my $arg = @args == 1 && !ref $args[0] ? { message => $args[0] } : ref $args[0] ? $args[0] : {@args};
  return bless { message => $arg->{message}, diagnostics => $arg->{diagnostics} }, $class;
}

sub message     { $_[0]{message} }
sub diagnostics { $_[0]{diagnostics} }

# What Test::Abortable records for this abort: one failed check named by the message, then each diagnostic.
sub as_test_abort_events {
  my ($self) = @_;
  return [
    [ Ok => (pass => 0, name => $self->message) ],
    map {; [ Diag => (message => $_) ] } @{ $self->diagnostics // [] },
  ];
}

1;
