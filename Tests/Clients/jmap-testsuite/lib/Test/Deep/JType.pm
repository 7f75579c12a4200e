use strict;
use warnings;

# Test::Deep::JType as fastmail's JMAP-TestSuite uses it (Debian has no package of it), written for Postern's client
# test of that suite. Data from JMAP::Tester is typed by JSON::Typist; these comparators check the JSON type too:
#
#   jstr / jstr($text)    a JSON string (with that text)
#   jnum / jnum($number)  a JSON number (equal to that number)
#   jbool / jbool($truth) a JSON boolean (with that truth)
#   jtrue, jfalse         the JSON booleans; in a request they encode as true and false
#   jcmp_deeply           cmp_deeply where a plain expected scalar matches a JSON string or number of the same text
package Test::Deep::JType;

use Exporter 'import';
use JSON ();
use Scalar::Util qw(blessed);
use Test::Deep ();

our @EXPORT = qw(jcmp_deeply jstr jnum jbool jtrue jfalse);

sub jstr  { Test::Deep::JType::Typed->new('string', @_) }
sub jnum  { Test::Deep::JType::Typed->new('number', @_) }
sub jbool { Test::Deep::JType::Typed->new('boolean', @_) }

my $TRUE  = Test::Deep::JType::Typed->new('boolean', 1);
my $FALSE = Test::Deep::JType::Typed->new('boolean', 0);
sub jtrue ()  { $TRUE }
sub jfalse () { $FALSE }

sub jcmp_deeply {
  local $Test::Builder::Level = $Test::Builder::Level + 1;
  local $Test::Deep::LeafWrapper = sub { Test::Deep::JType::Leaf->new($_[0]) };
  return Test::Deep::cmp_deeply(@_);
}

# The JSON type of a value from JSON::Typist (or plain JSON): string, number, boolean, null or undef for anything else.
sub json_type_of {
  my ($value) = @_;
  return 'null' unless defined $value;
  my $class = blessed $value;
  return undef unless $class;
  return 'string'  if $class eq 'JSON::Typist::String';
  return 'number'  if $class eq 'JSON::Typist::Number';
  return 'boolean' if JSON::is_bool($value);
  return undef;
}

sub render {
  my ($value) = @_;
  my $type = json_type_of($value) // (ref $value ? ref $value : 'plain');
  return 'undef' if $type eq 'null';
  return "$type " . ($type eq 'boolean' ? ($value ? 'true' : 'false') : "'$value'");
}

package Test::Deep::JType::Typed;

use Test::Deep::Cmp;
use Scalar::Util qw(blessed);

sub init {
  my ($self, $type, @value) = @_;
  $self->{type} = $type;
  $self->{has_value} = scalar @value;
  $self->{value} = $value[0];
}

sub descend {
  my ($self, $got) = @_;
  my $type = Test::Deep::JType::json_type_of($got);
  return 0 unless defined $type && $type eq $self->{type};
  return 1 unless $self->{has_value};
  my $want = $self->{value};
  return Test::Deep::descend($got, $want) if blessed $want && $want->isa('Test::Deep::Cmp');
  return (!$got) == (!$want) if $type eq 'boolean';
  return (0 + $got) == (0 + $want) if $type eq 'number';
  return defined $want && "$got" eq "$want";
}

sub renderExp {
  my ($self) = @_;
  return "a JSON $self->{type}" unless $self->{has_value};
  return "JSON $self->{type} " . ($self->{value} ? 'true' : 'false') if $self->{type} eq 'boolean';
  return "JSON $self->{type} '" . ($self->{value} // 'undef') . "'";
}

sub renderGot { my ($self, $got) = @_; return Test::Deep::JType::render($got) }

# In a request body, jtrue and jfalse (and a jstr or jnum with a value) stand for their JSON value.
sub TO_JSON {
  my ($self) = @_;
  my $value = $self->{value};
  return $value ? JSON::true : JSON::false if $self->{type} eq 'boolean';
  return 0 + $value if $self->{type} eq 'number';
  return "$value";
}

package Test::Deep::JType::Leaf;

use Test::Deep::Cmp;

sub init { my ($self, $value) = @_; $self->{val} = $value }

sub descend {
  my ($self, $got) = @_;
  my $want = $self->{val};
  return !defined $got unless defined $want;
  return 0 unless defined $got;
  my $type = Test::Deep::JType::json_type_of($got);
  return 0 if ref $got && !(defined $type && ($type eq 'string' || $type eq 'number'));
  return "$got" eq "$want";
}

sub renderExp { my ($self) = @_; return defined $self->{val} ? "'$self->{val}'" : 'undef' }
sub renderGot { my ($self, $got) = @_; return Test::Deep::JType::render($got) }

1;
