use strict;
use warnings;

# A JMAP response as fastmail's JMAP-TestSuite reads it (JMAP::Tester's, which Debian does not package), written for
# Postern's client test of that suite. A response holds sentences ([name, arguments, call id], arguments typed by
# JSON::Typist); the sentences that share a call id make a paragraph. Asking for what is not there aborts
# (JMAP::Tester::Abort), naming what the response held.
package JMAP::Tester::SentenceList;

use Data::Dumper ();
use JMAP::Tester::Abort;
use JSON::Typist;

sub _items { @{ $_[0]{items} } }

sub _sentence_of { JMAP::Tester::Response::Sentence->new($_[1], $_[0]) }

sub abort {
  my ($self, $message) = @_;
  local $Data::Dumper::Terse = 1;
  local $Data::Dumper::Sortkeys = 1;
  die JMAP::Tester::Abort->new({
    message     => $message,
    diagnostics => [ 'Response sentences: ' . Data::Dumper::Dumper($self->as_stripped_triples) ],
  });
}

sub strip_json_types { JSON::Typist->new->strip_types($_[1]) }

sub sentences { my ($self) = @_; return map {; $self->_sentence_of($_) } $self->_items }

sub sentence {
  my ($self, $n) = @_;
  my $item = ($self->{items} // [])->[$n] or $self->abort("there is no sentence for index $n");
  return $self->_sentence_of($item);
}

sub single_sentence {
  my ($self, $name) = @_;
  my @items = $self->_items;
  $self->abort(sprintf 'single_sentence called but there are %i sentences', scalar @items) unless @items == 1;
  my $sentence = $self->_sentence_of($items[0]);
  $self->abort(sprintf 'single sentence has name "%s" not "%s"', $sentence->name, $name)
    if defined $name && $sentence->name ne $name;
  return $sentence;
}

sub single { $_[0]->single_sentence($_[1]) }

sub sentence_named {
  my ($self, $name) = @_;
  my @found = grep {; $_->name eq $name } $self->sentences;
  $self->abort(qq{no sentence found with name "$name"}) unless @found;
  $self->abort(qq{found more than one sentence with name "$name"}) if @found > 1;
  return $found[0];
}

sub assert_n_sentences {
  my ($self, $n) = @_;
  my @sentences = $self->sentences;
  $self->abort("expected $n sentences but got " . @sentences) unless @sentences == $n;
  return @sentences;
}

sub as_triples { [ map {; $_->as_triple } $_[0]->sentences ] }
sub as_pairs   { [ map {; $_->as_pair } $_[0]->sentences ] }
sub as_stripped_triples { $_[0]->strip_json_types($_[0]->as_triples) }
sub as_stripped_pairs   { $_[0]->strip_json_types($_[0]->as_pairs) }

package JMAP::Tester::Response;
our @ISA = ('JMAP::Tester::SentenceList');

# $arg: items (the methodResponses), http_response, wrapper_properties (the whole response object).
sub new { my ($class, $arg) = @_; return bless { %$arg }, $class }

sub is_success { 1 }
sub http_response { $_[0]{http_response} }
sub response_payload { $_[0]{http_response} ? $_[0]{http_response}->as_string : '' }
sub wrapper_properties { $_[0]{wrapper_properties} }
sub items { $_[0]->_items }

# The call ids in the order they first appear, each with the indices of its sentences.
sub _paragraph_indices {
  my ($self) = @_;
  my (@order, %indices);
  my @items = $self->_items;
  for my $i (0 .. $#items) {
    my $cid = $items[$i][2] // '';
    push @order, $cid unless $indices{$cid};
    push @{ $indices{$cid} }, $i;
  }
  return (\@order, \%indices);
}

sub _paragraph_of {
  my ($self, $indices) = @_;
  my @items = $self->_items;
  return JMAP::Tester::Response::Paragraph->new([ @items[@$indices] ], $self);
}

sub paragraphs {
  my ($self) = @_;
  my ($order, $indices) = $self->_paragraph_indices;
  return map {; $self->_paragraph_of($indices->{$_}) } @$order;
}

sub paragraph {
  my ($self, $n) = @_;
  my ($order, $indices) = $self->_paragraph_indices;
  $self->abort("there is no paragraph for index $n") unless defined $order->[$n];
  return $self->_paragraph_of($indices->{ $order->[$n] });
}

sub assert_n_paragraphs {
  my ($self, $n) = @_;
  my @paragraphs = $self->paragraphs;
  $self->abort("expected $n paragraphs but got " . @paragraphs) unless @paragraphs == $n;
  return @paragraphs;
}

sub paragraph_by_client_id {
  my ($self, $cid) = @_;
  my (undef, $indices) = $self->_paragraph_indices;
  $self->abort("there is no paragraph for client_id $cid") unless $indices->{$cid};
  return $self->_paragraph_of($indices->{$cid});
}

package JMAP::Tester::Response::Paragraph;
our @ISA = ('JMAP::Tester::SentenceList');

sub new { my ($class, $items, $response) = @_; return bless { items => $items, response => $response }, $class }

sub client_id { $_[0]{items}[0][2] }

package JMAP::Tester::Response::Sentence;

use JSON::Typist;

sub new {
  my ($class, $item, $list) = @_;
  my $sentence = bless { name => $item->[0], arguments => $item->[1], client_id => $item->[2], list => $list },
    $class;
  return $sentence;
}

sub name      { $_[0]{name} }
sub arguments { $_[0]{arguments} }
sub client_id { $_[0]{client_id} }

sub as_triple { [ $_[0]{name}, $_[0]{arguments}, $_[0]{client_id} ] }
sub as_pair   { [ $_[0]{name}, $_[0]{arguments} ] }
sub as_stripped_triple { JSON::Typist->new->strip_types($_[0]->as_triple) }
sub as_stripped_pair   { JSON::Typist->new->strip_types($_[0]->as_pair) }

sub assert_named {
  my ($self, $name) = @_;
  $self->{list}->abort(sprintf 'expected sentence named "%s" but got "%s"', $name, $self->name)
    unless $self->name eq $name;
  return $self;
}

# This sentence read as the answer of a /set method.
sub as_set { bless { %{ $_[0] } }, 'JMAP::Tester::Response::Sentence::Set' }

package JMAP::Tester::Response::Sentence::Set;
our @ISA = ('JMAP::Tester::Response::Sentence');

sub as_set { $_[0] }
sub new_state { $_[0]{arguments}{newState} }
sub old_state { $_[0]{arguments}{oldState} }

sub created { $_[0]{arguments}{created} // {} }

sub created_id {
  my ($self, $creation_id) = @_;
  my $props = $self->created->{$creation_id} or return undef;
  return $props->{id};
}

sub created_creation_ids { keys %{ $_[0]->created } }
sub created_ids { map {; $_->{id} } values %{ $_[0]->created } }

sub updated {
  my $updated = $_[0]{arguments}{updated} // {};
  return ref $updated eq 'ARRAY' ? { map {; $_ => undef } @$updated } : $updated;
}

sub updated_ids { keys %{ $_[0]->updated } }
sub destroyed_ids { @{ $_[0]{arguments}{destroyed} // [] } }

sub not_created_ids   { keys %{ $_[0]{arguments}{notCreated} // {} } }
sub not_updated_ids   { keys %{ $_[0]{arguments}{notUpdated} // {} } }
sub not_destroyed_ids { keys %{ $_[0]{arguments}{notDestroyed} // {} } }

sub create_errors  { $_[0]{arguments}{notCreated} // {} }
sub update_errors  { $_[0]{arguments}{notUpdated} // {} }
sub destroy_errors { $_[0]{arguments}{notDestroyed} // {} }

1;
