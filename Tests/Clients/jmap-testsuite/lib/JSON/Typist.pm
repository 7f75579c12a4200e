use strict;
use warnings;

# JSON::Typist as fastmail's JMAP-TestSuite uses it (Debian has no package of it), written for Postern's client test
# of that suite: apply_types marks each string and number of freshly decoded JSON with its JSON type, so that a test
# can tell "1" from 1; strip_types turns them back into plain Perl values. Only this interface is provided.
package JSON::Typist;

use B ();
use Scalar::Util qw(blessed);

sub new { my ($class) = @_; return bless {}, $class }

# Returns a copy of $data (decoded JSON, not yet used as a string or a number) with every string a
# JSON::Typist::String and every number a JSON::Typist::Number; booleans and undef stay as they are.
sub apply_types {
  my ($self, $data) = @_;
  return undef unless defined $data;
  if (my $class = blessed $data) {
    return $data;    # a JSON boolean, or a value typed already
  }
  my $ref = ref $data;
  return [ map {; $self->apply_types($_) } @$data ] if $ref eq 'ARRAY';
  return { map {; $_ => $self->apply_types($data->{$_}) } keys %$data } if $ref eq 'HASH';
  return $data if $ref;
  my $flags = B::svref_2object(\$data)->FLAGS;
  my $numeric = ($flags & (B::SVp_IOK | B::SVp_NOK)) && !($flags & B::SVp_POK);
  return $numeric ? JSON::Typist::Number->new($data) : JSON::Typist::String->new($data);
}

# Returns a copy of $data with every typed string and number made a plain Perl scalar again.
sub strip_types {
  my ($self, $data) = @_;
  return undef unless defined $data;
  if (my $class = blessed $data) {
    return $$data if $class eq 'JSON::Typist::String';
    return 0 + $$data if $class eq 'JSON::Typist::Number';
    return $data;
  }
  my $ref = ref $data;
  return [ map {; $self->strip_types($_) } @$data ] if $ref eq 'ARRAY';
  return { map {; $_ => $self->strip_types($data->{$_}) } keys %$data } if $ref eq 'HASH';
  return $data;
}

# A JSON string: compares and prints as its text, encodes back as a JSON string.
package JSON::Typist::String;

use overload
  '""'  => sub { ${ $_[0] } },
  'eq'  => sub { "${ $_[0] }" eq "$_[1]" },
  'ne'  => sub { "${ $_[0] }" ne "$_[1]" },
  'cmp' => sub { my ($a, $b, $swap) = @_; my $r = ("$$a" cmp "$b"); $swap ? -$r : $r },
  'bool' => sub { length ${ $_[0] } && ${ $_[0] } ne '0' },
  fallback => 1;

sub new { my ($class, $value) = @_; my $copy = "$value"; return bless \$copy, $class }
sub TO_JSON { return "${ $_[0] }" }

# A JSON number: compares as a number, prints as its text, encodes back as a JSON number.
package JSON::Typist::Number;

use overload
  '""'  => sub { "${ $_[0] }" },
  '0+'  => sub { 0 + ${ $_[0] } },
  '=='  => sub { (0 + ${ $_[0] }) == $_[1] },
  '!='  => sub { (0 + ${ $_[0] }) != $_[1] },
  '<=>' => sub { my ($a, $b, $swap) = @_; my $r = ((0 + $$a) <=> $b); $swap ? -$r : $r },
  'bool' => sub { 0 + ${ $_[0] } },
  fallback => 1;

sub new { my ($class, $value) = @_; my $copy = $value; return bless \$copy, $class }
sub TO_JSON { return 0 + ${ $_[0] } }

1;
