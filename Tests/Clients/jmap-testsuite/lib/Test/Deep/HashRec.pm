use strict;
use warnings;

# Test::Deep::HashRec as fastmail's JMAP-TestSuite uses it (Debian has no package of it), written for Postern's client
# test of that suite: hashrec({ required => {...}, optional => {...} }) matches a hash that has every required key,
# each matching its expectation, and no key outside the two lists; an optional key, when present, must match too.
# `allow_unknown => 1` lets other keys through.
package Test::Deep::HashRec;

use Exporter 'import';
our @EXPORT = qw(hashrec);

sub hashrec { Test::Deep::HashRec::Cmp->new(@_) }

package Test::Deep::HashRec::Cmp;

use Test::Deep::Cmp;

sub init {
  my ($self, $spec) = @_;
  $self->{required} = $spec->{required} // {};
  $self->{optional} = $spec->{optional} // {};
  $self->{allow_unknown} = $spec->{allow_unknown} // 0;
}

sub descend {
  my ($self, $got) = @_;
  my $data = $self->data;
  unless (ref $got eq 'HASH') {
    $data->{problem} = 'not a hash';
    return 0;
  }
  my @missing = sort grep {; !exists $got->{$_} } keys %{ $self->{required} };
  if (@missing) {
    $data->{problem} = "missing required keys: @missing";
    return 0;
  }
  unless ($self->{allow_unknown}) {
    my @unknown = sort grep {; !exists $self->{required}{$_} && !exists $self->{optional}{$_} } keys %$got;
    if (@unknown) {
      $data->{problem} = "unknown keys: @unknown";
      return 0;
    }
  }
  for my $key (sort keys %$got) {
    my $want = exists $self->{required}{$key} ? $self->{required}{$key}
             : exists $self->{optional}{$key} ? $self->{optional}{$key}
             : next;
    $data->{index} = $key;
    return 0 unless Test::Deep::descend($got->{$key}, $want);
  }
  return 1;
}

sub diagnostics {
  my ($self, $where, $last) = @_;
  return "Checking $where: $last->{problem}\n";
}

# A failure below names the key it was under, as Test::Deep's own hash comparisons do.
sub render_stack {
  my ($self, $var, $data) = @_;
  return $var unless defined $data->{index};
  $var .= '->' unless $Test::Deep::Stack->incArrow;
  return $var . '{"' . quotemeta($data->{index}) . '"}';
}

sub reset_arrow { 0 }

1;
